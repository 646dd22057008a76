"""The LLM stages against a real loopback HTTP server with canned OpenAI-style replies.

The server (stdlib ``http.server`` in a thread) answers ``/v1/chat/completions`` according to a
per-stage script: JSON replies, replies that are not JSON, JSON of the wrong shape, raw bodies
that are not valid HTTP JSON at all, and replies slower than the client's timeout.
"""
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from kumo_gym.analysis.llm import parse_json_reply, prompt_hash
from kumo_gym.analysis.pipeline import analyse_trace

pytest.importorskip("openai")
from kumo_gym.training.backends import OpenAIChatBackend

from .scripted_model import stage_of


class Canned:
    """The server's script: stage -> function(user_text) -> (kind, value)."""

    def __init__(self, script):
        self.script = script
        self.calls = []
        self.seeds = []


def completion_body(content: str) -> bytes:
    return json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "canned",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()


@pytest.fixture
def server():
    canned = Canned({})

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            req = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            system, user = req["messages"][0]["content"], req["messages"][1]["content"]
            stage = stage_of(system)
            canned.calls.append(stage)
            canned.seeds.append(req.get("seed"))
            kind, value = canned.script.get(stage, lambda u: ("json", []))(user)
            if kind == "sleep":
                time.sleep(value)
                kind, value = "json", []
            if kind == "raw":  # a broken HTTP body: not JSON at all
                body = value.encode()
            else:
                body = completion_body(json.dumps(value) if kind == "json" else value)
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    canned.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    yield canned
    httpd.shutdown()
    httpd.server_close()


def backend_for(server, timeout=5.0):
    return OpenAIChatBackend(base_url=server.url, model="canned", timeout=timeout, max_retries=0)


def test_parse_json_reply():
    assert parse_json_reply('Sure! ```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_json_reply('prefix [1, 2] suffix') == [1, 2]
    assert parse_json_reply('{bad} then {"ok": true}') == {"ok": True}
    with pytest.raises(ValueError):
        parse_json_reply("no json here")
    assert len(prompt_hash("rule")) == 12


def test_full_pipeline_with_validation_and_counters(server, tents_record):
    good_extra = {"kind": "TreeCandidate", "payload": {"tree_r": 0, "tree_c": 0, "cell_r": [1, 0], "cell_c": [0, 1]},
                  "status": "stated", "scope": "MAIN", "source_sents": [2]}
    out_of_range = {"kind": "Tent", "payload": {"r": 9, "c": 0}, "status": "stated", "scope": "MAIN", "source_sents": [2]}
    wrong_kind = {"kind": "Lamp", "payload": {"r": 0, "c": 0}, "status": "stated", "scope": "MAIN", "source_sents": [2]}
    tentative_main = {"kind": "Tent", "payload": {"r": 2, "c": 2}, "status": "tentative", "scope": "MAIN",
                      "source_sents": [5]}

    def complete(user):
        draft = json.loads(user.split("Draft claims:\n", 1)[1])
        return "json", {"claims": draft + [good_extra, out_of_range, wrong_kind, tentative_main]}

    def screen(user):
        listing = user.split("Claims:\n", 1)[1].splitlines()
        first_tree = next(int(line.split(":")[0]) for line in listing if '"Tree"' in line)
        return "json", {"decisions": [{"i": first_tree, "action": "keep"}, {"i": 10_000, "action": "keep"},
                                      {"i": 0, "action": "explode"}]}

    def rules(user):
        target = re.search(r"Target: (C\d+): (.*)", user)
        tid, claim = target.group(1), json.loads(target.group(2))
        if claim["kind"] == "Remaining":  # cite a premise the trace never states
            return "json", {"rule": "R_COUNT_REMAINING", "inputs": ["C_MISSING"], "output": tid, "support_sents": [8]}
        if claim["kind"] == "NotTent" and claim["payload"] == {"r": 1, "c": 1}:
            return "json", {"rule": "R_ONLY_CAND", "inputs": [], "output": tid}  # wrong output kind
        if claim["kind"] == "Tent" and claim["payload"] == {"r": 3, "c": 1}:
            return "json", {"rule": "R_ONLY_CAND", "inputs": ["C999"], "output": tid}  # unknown input
        if claim["kind"] == "Tent" and claim["payload"] == {"r": 1, "c": 0}:
            earlier = re.findall(r"^(C\d+): (.*)$", user.split("Earlier claims:\n", 1)[1], flags=re.MULTILINE)
            ids = [cid for cid, body in earlier if '"Tree"' in body or '"Quota"' in body]
            return "json", {"rule": "R_ONLY_CAND", "inputs": ids, "output": tid}
        return "json", []

    server.script = {"complete": complete, "scratch": lambda u: ("text", "I could not find any claims, sorry."),
                     "screen": screen, "rules": rules}
    doc = analyse_trace(tents_record, backend_for(server))
    kinds = [c["kind"] for c in doc["claims"]]
    assert "TreeCandidate" in kinds and "Lamp" not in kinds
    counters = doc["counters"]
    assert counters["complete"]["invalid"] == 3  # out of range, unknown kind, tentative in MAIN
    assert counters["scratch"]["malformed_json"] == 1
    assert counters["screen"]["invalid"] == 2
    assert counters["rules"]["invalid"] == 2  # wrong output kind, unknown input
    assert "indexing" not in server.calls  # the deterministic vote was decisive
    # a C_MISSING input becomes an unverifiable placeholder node just before its conclusion
    assert doc["metrics"]["n_missing"] == 1
    rem = next(c for c in doc["claims"] if c["kind"] == "Remaining")
    assert any(e["dst"] == rem["id"] and e["src"].startswith("M") for e in doc["edges"])
    assert doc["missing"] == [{"id": "M1", "feeds": [rem["id"]]}]
    tent = next(c for c in doc["claims"] if c["kind"] == "Tent" and c["payload"] == {"r": 1, "c": 0})
    assert tent["status"] == "derived"
    assert {e["rule"] for e in doc["edges"] if e["dst"] == tent["id"]} == {"R_ONLY_CAND"}
    prov = doc["provenance"]
    assert prov["mode"] == "llm" and prov["models"]["claims"] == "canned" and "rule" in prov["prompt_hashes"]


def test_screen_drops_and_normalises(server, tents_record):
    def screen(user):
        listing = user.split("Claims:\n", 1)[1].splitlines()
        decisions = []
        for line in listing:
            i, body = line.split(": ", 1)
            c = json.loads(body)
            if c["kind"] == "Quota":
                decisions.append({"i": int(i), "action": "drop"})
            elif c["kind"] == "Remaining":
                fixed = dict(c, payload=dict(c["payload"], remaining=1))
                decisions.append({"i": int(i), "action": "normalise", "claim": fixed})
            elif c["kind"] == "Tree":
                moved = dict(c, source_sents=[1])  # moving a claim elsewhere is refused
                decisions.append({"i": int(i), "action": "normalise", "claim": moved})
        return "json", {"decisions": decisions}

    server.script = {"complete": lambda u: ("sleep", 0.0), "screen": screen}
    doc = analyse_trace(tents_record, backend_for(server), llm_options={"stages": ("screen",)})
    kinds = [c["kind"] for c in doc["claims"]]
    assert "Quota" not in kinds and kinds.count("Tree") == 3
    assert next(c for c in doc["claims"] if c["kind"] == "Remaining")["payload"]["remaining"] == 1
    assert doc["counters"]["screen"]["dropped"] == 4 and doc["counters"]["screen"]["normalised"] == 1


def test_wrong_schema_and_broken_http_bodies_fall_back(server, tents_record):
    server.script = {"complete": lambda u: ("json", {"facts": []}),
                     "scratch": lambda u: ("raw", "<html>502 Bad Gateway</html>"),
                     "rules": lambda u: ("json", {"rule": 42})}
    det = analyse_trace(tents_record)
    doc = analyse_trace(tents_record, backend_for(server), llm_options={"stages": ("complete", "scratch", "rules")})
    assert doc["counters"]["complete"]["wrong_shape"] == 1
    assert doc["counters"]["scratch"]["failed_calls"] == 1
    # the draft stands when the completion step fails; rules all fall back to "stated"
    assert [(c["kind"], c["payload"]) for c in doc["claims"]] == [(c["kind"], c["payload"]) for c in det["claims"]]
    assert all(e["type"] == "restatement" for e in doc["edges"])


def test_timeouts_are_counted_and_do_not_hang(server, solo_record):
    server.script = {"indexing": lambda u: ("sleep", 2.0), "complete": lambda u: ("sleep", 2.0)}
    record = dict(solo_record, completion="Row 2 is missing 1 and 4. Then r3c3 = 4.")
    t0 = time.monotonic()
    doc = analyse_trace(record, backend_for(server, timeout=0.3), llm_options={"stages": ("complete",)})
    assert time.monotonic() - t0 < 10
    assert doc["counters"]["indexing"]["failed_calls"] == 1
    assert doc["counters"]["complete"]["failed_calls"] == 1
    assert doc["indexing"] == "1-based"  # the default when neither the vote nor the model decides
    assert [c["kind"] for c in doc["claims"]] == ["UnitMissing", "Assign"]


def test_indexing_question_is_asked_when_the_vote_is_undecided(server, solo_record):
    server.script = {"indexing": lambda u: ("text", "0-based")}
    record = dict(solo_record, completion="Then r2c2 = 4.")
    doc = analyse_trace(record, backend_for(server), llm_options={"stages": ()})
    assert server.calls == ["indexing"] and doc["indexing"] == "0-based"
    assert doc["claims"][0]["payload"] == {"r": 2, "c": 2, "d": 4}


def test_stability_table_from_repeated_extractions(server, tents_record, tmp_path):
    from kumo_gym.analysis.report import analyse_file

    def scratch(user):
        # odd seeds "see" one extra claim: the claim sets differ between runs
        seed = server.seeds[-1]
        extra = [{"kind": "NotTent", "payload": {"r": 0, "c": 3}, "status": "stated", "scope": "MAIN",
                  "source_sents": [1]}] if seed % 2 else []
        return "json", {"claims": extra}

    server.script = {"scratch": scratch}
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps(tents_record) + "\n")
    summary = analyse_file(path, tmp_path / "out", backend=backend_for(server), plots=False, stability_runs=3,
                           llm_options={"stages": ("scratch",)})
    assert summary["analysed"] == 1
    table = json.loads((tmp_path / "out" / "stability.json").read_text())
    assert table[0]["model"] == "hand" and table[0]["traces"] == 1
    assert 0 < table[0]["jaccard_mean"] < 1 and table[0]["jaccard_sd"] > 0
    assert {0, 1, 2} <= set(server.seeds)
    assert "Extraction stability (Table 2)" in (tmp_path / "out" / "report.md").read_text()


@pytest.mark.slow
def test_local_transformers_backend_runs_the_model_stages(tents_record):
    """A real local model (the project's tiny CPU model, built once into the user cache) behind
    the same stages: whatever it writes is validated, and the deterministic draft stands where
    its output is unusable."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    from kumo_gym.training.backends import TransformersBackend, tiny_model

    backend = TransformersBackend(tiny_model(), max_tokens=8, temperature=1.0, device="cpu")
    det = analyse_trace(tents_record)
    doc = analyse_trace(tents_record, backend, llm_options={"stages": ("complete",), "max_tokens": 8})
    counters = doc["counters"]
    assert counters["complete"]["calls"] == 1
    assert doc["metrics"]["V_raw"] == len(doc["claims"])  # every kept claim is a node of G_raw
    if counters["complete"].get("malformed_json") or counters["complete"].get("wrong_shape"):
        # an unusable completion leaves the deterministic draft in place
        assert {(c["kind"], json.dumps(c["payload"])) for c in det["claims"]} <= \
            {(c["kind"], json.dumps(c["payload"])) for c in doc["claims"]}
