"""Image observations for vision-language models.

Environments of puzzles that draw (SPaRC, the planning puzzles, and any Task implementing
``ImageRendering``) take ``observation="image+text"``: each observation is the text plus a picture
of the puzzle in its current state, and :class:`kumo_gym.wrappers.ChatEnv` turns it into one user
message ``[{"type": "image", "image": <PIL>}, {"type": "text", "text": ...}]`` (the form of TRL
and of Hugging Face processors). ``make_dataset(..., env_kwargs={"observation": "image+text"})``
gives TRL's vision-language layout: an image placeholder in ``prompt`` and the picture in
``images``. For OpenAI-compatible vision endpoints the image part travels as an ``image_url`` data
URL (:func:`kumo_gym.training.backends.openai_content`). Text-only local models see the text.

:func:`tiny_vlm` builds a tiny LLaVA-style vision-language model and its processor from a config
(nothing downloaded), for tests and CPU smoke runs of the vision path.
"""
from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

from .backends import default_cache_dir, save_built_model, tiny_model

#: the chat template of the tiny VLM: ChatML, an ``<image>`` token per image part
VLM_CHAT_TEMPLATE = (
    "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}{{ '<image>' }}{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}{{ '<|im_end|>\n' }}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
TINY_VLM_VERSION = 1
_lock = threading.Lock()


def tiny_vlm(path: str | os.PathLike | None = None, rebuild: bool = False, seed: int = 0) -> str:
    """The directory of a tiny vision-language model (LLaVA layout: a one-layer CLIP vision tower
    on 56x56 images, a projector and the tiny Llama of :func:`~kumo_gym.training.backends.tiny_model`
    with its tokenizer plus an ``<image>`` token), built on first use and reloadable with
    ``AutoModelForImageTextToText``/``AutoProcessor``. It knows nothing; it exists so that the
    vision path (TRL's VLM GRPO and SFT) runs end to end on a CPU."""
    target = Path(path) if path is not None else default_cache_dir().parent / f"tiny-vlm-v{TINY_VLM_VERSION}"
    with _lock:
        if (target / "config.json").exists() and not rebuild:
            return str(target)
        tmp = target.parent / f".{target.name}.tmp-{os.getpid()}-{threading.get_ident()}"
        shutil.rmtree(tmp, ignore_errors=True)
        _build(tmp, tiny_model(), seed)
        shutil.rmtree(target, ignore_errors=True)
        try:
            os.replace(tmp, target)
        except OSError:  # another process won the race with the same build
            shutil.rmtree(tmp, ignore_errors=True)
    return str(target)


def _build(out: Path, text_model: str, seed: int) -> None:
    import warnings

    import torch
    from transformers import (
        AutoTokenizer,
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    try:
        from transformers import CLIPImageProcessorPil as ImageProcessor
    except ImportError:  # older transformers: the one image processor works with PIL alone
        from transformers import CLIPImageProcessor as ImageProcessor

    tok = AutoTokenizer.from_pretrained(text_model)
    tok.add_special_tokens({"additional_special_tokens": ["<image>"]})
    tok.chat_template = VLM_CHAT_TEMPLATE
    image_processor = ImageProcessor(size={"shortest_edge": 56}, crop_size={"height": 56, "width": 56})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        processor = LlavaProcessor(image_processor=image_processor, tokenizer=tok, patch_size=14,
                                   vision_feature_select_strategy="default", chat_template=VLM_CHAT_TEMPLATE,
                                   image_token="<image>", num_additional_image_tokens=1)
    torch.manual_seed(seed)
    vision = CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2,
                              image_size=56, patch_size=14, projection_dim=32)
    text = LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
                       tie_word_embeddings=True, pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id,
                       eos_token_id=tok.eos_token_id)
    config = LlavaConfig(vision_config=vision, text_config=text, image_token_index=tok.convert_tokens_to_ids("<image>"),
                         vision_feature_select_strategy="default", vision_feature_layer=-1)
    save_built_model(out, LlavaForConditionalGeneration(config), tok, processor)
