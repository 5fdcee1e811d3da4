"""HTTP cases at the edges of values no other group reaches: ``/detokenize`` ids past what each
tokenizer's decoder reads (``tokens_ids``) and an empty stop string in a derender body
(``derender_stop_empty``), the generation flags a chat template sees (``render_template_vars``).
Found by ``probe_paths.py`` (``--pool ints``, the derender routes, ``tokenize_flags``);
recorded by ``record.py``, replayed by ``replay.py`` as every ``corpus.HTTP_GROUPS`` group.
"""

from __future__ import annotations

from typing import Any

#: /detokenize ids past what each tokenizer's decoder can read: vLLM's schema bounds them to a
#: signed 64-bit integer; a ``tokenizers`` decode refuses past u32 ("number too large to fit in
#: target type"), SentencePiece (mistral-common v3) past int32; mistral-common refuses any id
#: past its vocabulary (vLLM's 500: ``.vllm500``)
_BIG = {"u32": 2**32 - 1, "u32p1": 2**32, "i63": 2**63 - 1, "i63p1": 2**63, "u64p1": 2**64}
TOKENS_IDS: dict[str, tuple[str, str, dict[str, Any]]] = {
    **{f"detokenize_{model}_{tag}{'_mid' if mid else ''}": (model, "/detokenize", {
        "model": model, "tokens": [9707, value, 1052] if mid else [value]})
       for model in ("qwen3", "gpt2", "gpt-oss", "mistral-v3-hf")
       for tag, value in _BIG.items() for mid in (False, True)},
    **{f"detokenize_mistral_{tag}{'_mid' if mid else ''}": ("mistral-v3", "/detokenize", {
        "model": "mistral-v3", "tokens": [1050, value, 1052] if mid else [value]})
       for tag, value in (("last", 32767), ("vocab.vllm500", 32768),
                          ("i31.vllm500", 2**31 - 1), ("i31p1", 2**31), ("u32p1", 2**32),
                          ("i63p1", 2**63)) for mid in (False, True)},
}

#: an empty stop string in a derender body (render refuses it: "stop cannot contain an empty
#: string"): vLLM 0.33's batch derender ignores it and applies the others
_QPROMPT = [151644, 872, 198, 80, 151645, 198, 151644, 77091, 198]
DERENDER_STOP_EMPTY: dict[str, tuple[str, str, dict[str, Any]]] = {
    **{f"chat_{tag}_{finish}": ("qwen3", "/v1/chat/completions/derender", {
        "model": "qwen3", "prompt_token_ids": _QPROMPT,
        "chat_request": {"model": "qwen3", "messages": [{"role": "user", "content": "q"}],
                         "stop": stop, "chat_template_kwargs": {"enable_thinking": False}},
        "generate_response": {"request_id": "r", "choices": [{
            "index": 0, "finish_reason": finish,
            "token_ids": [13048, 87, 13048] + ([151645] if finish == "stop" else [])}]}})
       for tag, stop in (("only", [""]), ("first", ["", "x"]), ("last", ["x", ""]),
                         ("str", ""), ("two", ["", ""]))
       for finish in ("stop", "length")},
    **{f"completion_{tag}_length": ("gpt2", "/v1/completions/derender", {
        "model": "gpt2", "prompt_token_ids": [[7454, 2402]], "prompt_tokens": [2],
        "completion_request": {"model": "gpt2", "prompt": "Once upon", "stop": stop},
        "generate_responses": [{"request_id": "r", "choices": [{
            "index": 0, "finish_reason": "length", "token_ids": [257, 640, 257]}]}]})
       for tag, stop in (("only", [""]), ("first", ["", " time"]), ("str", ""))},
}


#: what a chat template sees of the generation flags: transformers (so vLLM) hands it
#: ``add_generation_prompt`` but not ``continue_final_message`` (undefined, whatever the
#: request's ``chat_template_kwargs`` say), and cuts a continued final message after its text
_VARS = ("[{{ continue_final_message }}|{{ add_generation_prompt }}|{{ tokenize }}]"
         "{% for m in messages %}<{{ m.content }}>{% endfor %}END")
_TURNS = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a b"}]
RENDER_TEMPLATE_VARS: dict[str, tuple[str, str, dict[str, Any]]] = {
    f"{route}_{tag}": ("qwen3-trusted", path, {
        "model": "qwen3", "messages": _TURNS, "chat_template": _VARS, **body})
    for route, path in (("chat", "/v1/chat/completions/render"), ("tokenize", "/tokenize"))
    for tag, body in (
        ("continue", {"add_generation_prompt": False, "continue_final_message": True}),
        ("plain", {"add_generation_prompt": False}),
        ("generation", {}),
        ("kwargs_continue", {"add_generation_prompt": False,
                             "chat_template_kwargs": {"continue_final_message": True}}),
        ("kwargs_tito_flag", {"add_generation_prompt": False, "continue_final_message": True,
                              "chat_template_kwargs": {"tito_continue_final_message": False}}),
        ("kwargs_tokenize", {"chat_template_kwargs": {"tokenize": True}}))
}
