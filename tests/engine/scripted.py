"""A tiny Llama whose greedy next token is a fixed function of the current token: one layer whose attention
and MLP write nothing (o_proj, down_proj zero), one-hot embeddings, and an lm_head row per successor. So a
test knows what the real engine must generate (including <think> blocks) on a real exported graph.

    model_dir = export_scripted(tmp, {"ponder": "<think>", "<think>": "secret", ...}, chat_template=...)
"""

from __future__ import annotations

import json
from pathlib import Path

HIDDEN = 64
WORDS = (
    "<unk> <s> </s> <think> </think> <|im_start|> <|im_end|> user assistant system "
    "hello world secret musing ponder muse again done Hi 1787 1788"
).split()
SPECIAL = ("<s>", "</s>", "<think>", "</think>", "<|im_start|>", "<|im_end|>")
EOS = "</s>"

# Qwen3-style: the generation prompt opens a think block unless the caller switches thinking off.
THINKING_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}"
    "{% if enable_thinking is defined and enable_thinking is false %}{{ '<think>\\n\\n</think>\\n\\n' }}"
    "{% else %}{{ '<think>\\n' }}{% endif %}{% endif %}"
)


def export_scripted(
    out: Path,
    successors: dict[str, str],
    chat_template: str = THINKING_TEMPLATE,
    think_special: bool = True,
    context: int = 128,
) -> Path:
    """Save the scripted checkpoint under out/checkpoint and export it (fp32) to out/model; returns the
    model dir. Tokens without a successor are followed by eos. `think_special`: whether <think> and
    </think> are special tokens (dropped when decoding) or plain added tokens (decoded as text); real
    tokenizers have either. `context`: max_position_embeddings (a rewrite prompt needs more than 128)."""
    import torch
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM

    from export.graph import Precision
    from export.llama import export
    from export.registry import ExportOptions

    ids = {word: i for i, word in enumerate(WORDS)}
    config = LlamaConfig(
        vocab_size=len(WORDS),
        hidden_size=HIDDEN,
        intermediate_size=128,
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=context,
        tie_word_embeddings=False,
        bos_token_id=ids["<s>"],
        eos_token_id=ids[EOS],
    )
    model = LlamaForCausalLM(config).eval()
    with torch.no_grad():
        model.model.embed_tokens.weight.copy_(torch.eye(len(WORDS), HIDDEN))
        for layer in model.model.layers:
            layer.self_attn.o_proj.weight.zero_()
            layer.mlp.down_proj.weight.zero_()
        head = torch.zeros(len(WORDS), HIDDEN)
        for word, i in ids.items():
            head[ids[successors.get(word, EOS)], i] = 5.0  # logit 40 after the final norm: no contest
        model.lm_head.weight.copy_(head)
    checkpoint = out / "checkpoint"
    model.save_pretrained(checkpoint)
    tokenizer = Tokenizer(models.WordLevel(vocab=ids, unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tags = ("<think>", "</think>")
    tokenizer.add_special_tokens([AddedToken(t, special=True) for t in SPECIAL if t not in tags])
    tokenizer.add_tokens([AddedToken(t, special=think_special) for t in tags])
    tokenizer.save(str(checkpoint / "tokenizer.json"))
    (checkpoint / "tokenizer_config.json").write_text(json.dumps({"chat_template": chat_template}))
    export(checkpoint, out / "model", ExportOptions(precision=Precision("fp32")))
    return out / "model"
