"""The Llama layer shapes the serving measurements use (no biases, untied output, vocabulary 128,256).

llama3.2-1b is also the shape of ../shared/validation/serving_rows.csv's 1.5B decoder (hidden 2,048, GQA 32/8 at
head size 64, FFN 8,192, 16 layers); llama3-8b and llama3-70b are Llama 3 8B and 70B (head size 128)."""

VOCAB = 128256

MODELS = {
    "llama3.2-1b": dict(layers=16, hidden=2048, heads=32, kv_heads=8, ffn=8192),
    "llama3-8b": dict(layers=32, hidden=4096, heads=32, kv_heads=8, ffn=14336),
    "llama3-70b": dict(layers=80, hidden=8192, heads=64, kv_heads=8, ffn=28672),
}


def head_dim(m):
    return m["hidden"] // m["heads"]


def linears(m):
    """(name, N, K) of each linear layer as y = x W^T with W of N x K: fused QKV, output projection, fused
    gate+up, down, LM head."""
    d = head_dim(m)
    return [("qkv", (m["heads"] + 2 * m["kv_heads"]) * d, m["hidden"]),
            ("o", m["hidden"], m["heads"] * d),
            ("gate_up", 2 * m["ffn"], m["hidden"]),
            ("down", m["hidden"], m["ffn"]),
            ("lm_head", VOCAB, m["hidden"])]
