"""Chat templates without a system role (Gemma 2's raises "System role not supported"; others drop
the message): every place that applies a template folds the system message into the first user
turn instead of failing, and keeps the system text."""
from __future__ import annotations

import pytest

from kumo_gym.wrappers.chat import fold_rows_for, fold_system, for_template, system_supported

#: in the manner of Gemma 2's template: turns between markers, and a system message refused
NO_SYSTEM = ("{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}"
             "{% for m in messages %}<turn>{{ 'model' if m['role'] == 'assistant' else m['role'] }}\n"
             "{{ m['content'] }}<end>\n{% endfor %}{% if add_generation_prompt %}<turn>model\n{% endif %}")
#: a template that silently leaves the system message out
DROPS_SYSTEM = ("{% for m in messages %}{% if m['role'] != 'system' %}<turn>{{ m['role'] }}\n{{ m['content'] }}<end>\n"
                "{% endif %}{% endfor %}{% if add_generation_prompt %}<turn>assistant\n{% endif %}")
MESSAGES = [{"role": "system", "content": "Answer with a list."}, {"role": "user", "content": "Reach 7 from 0."}]


@pytest.fixture
def tok(tiny):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny)


def test_fold_system_moves_the_system_text_into_the_first_user_turn():
    assert fold_system(MESSAGES) == [{"role": "user", "content": "Answer with a list.\n\nReach 7 from 0."}]
    assert fold_system(MESSAGES[1:]) == MESSAGES[1:]
    assert fold_system([MESSAGES[0]]) == [{"role": "user", "content": "Answer with a list."}]
    parts = [{"type": "image"}, {"type": "text", "text": "the grid"}]
    assert fold_system([MESSAGES[0], {"role": "user", "content": parts}])[0]["content"] == [
        {"type": "text", "text": "Answer with a list."}, *parts]
    assert MESSAGES[1]["content"] == "Reach 7 from 0."  # the input is not changed


@pytest.mark.parametrize("template", [NO_SYSTEM, DROPS_SYSTEM])
def test_templates_without_a_system_role_get_it_in_the_user_turn(tok, template):
    from kumo_gym.training.fresh import chat_prompt
    from kumo_gym.training.rollout import _turn_frame, env_turn_text, render

    assert system_supported(tok)  # the tiny model's own template has one
    assert for_template(tok, MESSAGES) is MESSAGES
    tok.chat_template = template
    assert not system_supported(tok)
    for text in (render(tok, MESSAGES, True), chat_prompt(tok, MESSAGES)):
        assert "Answer with a list.\n\nReach 7 from 0." in text and text.count("<turn>") == 2, text
    # multi-turn GRPO splits such a template into turns too
    end, _, _ = _turn_frame(tok)
    assert end == "<end>\n"
    again = env_turn_text(tok, [*MESSAGES, {"role": "assistant", "content": "[7]"},
                                {"role": "user", "content": "Wrong: try again."}], hit_eos=False)
    assert again == "<end>\n<turn>user\nWrong: try again.<end>\n<turn>" + ("model\n" if template == NO_SYSTEM
                                                                            else "assistant\n")


def test_the_local_backend_and_trainer_datasets_fold_the_system_message(tiny, tok):
    import datasets
    import torch
    from transformers import AutoModelForCausalLM

    from kumo_gym.training.backends import TransformersBackend

    tok.chat_template = NO_SYSTEM
    with pytest.raises(Exception, match="System role not supported"):
        tok.apply_chat_template(MESSAGES, tokenize=False)  # what a user met before
    model = AutoModelForCausalLM.from_pretrained(tiny, dtype=torch.float32)
    backend = TransformersBackend(model, tok, device="cpu", max_tokens=4, temperature=0.0)
    ids = backend.prompt_ids(MESSAGES)
    assert "Answer with a list.\n\nReach 7 from 0." in tok.decode(ids)
    assert len(backend.chat(MESSAGES)) == 1
    rows = datasets.Dataset.from_list([{"prompt": MESSAGES, "completion": [{"role": "assistant", "content": "[7]"}]}])
    folded = fold_rows_for(tok, rows)
    assert folded[0]["prompt"] == fold_system(MESSAGES) and folded[0]["completion"] == rows[0]["completion"]
    assert tok.apply_chat_template(folded[0]["prompt"], tokenize=False)  # TRL's call now succeeds
