"""A Llama-style decoder for serving measurements, in plain PyTorch with random bf16 weights: RMSNorm computed in
fp32 (as Hugging Face's LlamaRMSNorm), fused QKV projection, unfused rotate-half RoPE (theta 500,000), grouped-
query attention through F.scaled_dot_product_attention(enable_gqa=True), a preallocated KV cache per layer of
(batch, kv_heads, max_len, head_dim) written by slice assignment, fused gate+up projection with SwiGLU, no biases,
untied LM head, greedy sampling (argmax) of the last token's logits.

forward(tokens, pos0, cache) is one serving step: a prefill when pos0 == 0 and tokens holds whole prompts (causal
attention over the new tokens), a decode step when tokens holds one token per sequence that already has pos0
tokens cached (attention over the cache's first pos0 + 1 entries). serve_ops.py times the same functions alone.
"""
import torch
import torch.nn.functional as F

from shapes import VOCAB, head_dim


def rms_norm(x, w, eps=1e-5):
    xf = x.float()
    return w * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


def rope(q, k, cos, sin):
    """q (..., S, Hq, D), k (..., S, Hkv, D); cos/sin (S, 1, D) broadcast over the heads."""
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


def rope_tables(max_pos, d, theta=500000.0, device="cuda"):
    inv = 1.0 / theta ** (torch.arange(0, d, 2, device=device, dtype=torch.float32) / d)
    f = torch.outer(torch.arange(max_pos, device=device, dtype=torch.float32), inv)
    emb = torch.cat((f, f), dim=-1)
    return emb.cos().to(torch.bfloat16), emb.sin().to(torch.bfloat16)


def swiglu(gu):
    g, u = gu.chunk(2, dim=-1)
    return F.silu(g) * u


def write_cache(kc, vc, k, v, pos0):
    """k, v (B, S, Hkv, D) into the caches (B, Hkv, max_len, D) at positions pos0..pos0+S-1."""
    s = k.shape[1]
    kc[:, :, pos0:pos0 + s] = k.transpose(1, 2)
    vc[:, :, pos0:pos0 + s] = v.transpose(1, 2)


def uniform(shape, scale):
    return torch.empty(shape, device="cuda", dtype=torch.bfloat16).uniform_(-scale, scale)


class LlamaDecoder:
    def __init__(self, shape, max_pos):
        self.s = shape
        h, f, d = shape["hidden"], shape["ffn"], head_dim(shape)
        self.hq, self.hkv, self.d = shape["heads"], shape["kv_heads"], d
        self.embed = uniform((VOCAB, h), 1.0)
        self.layers = []
        for _ in range(shape["layers"]):
            self.layers.append(dict(
                ln1=uniform((h,), 1.0).abs_() + 0.5, ln2=uniform((h,), 1.0).abs_() + 0.5,
                qkv=uniform(((self.hq + 2 * self.hkv) * d, h), h ** -0.5),
                o=uniform((h, self.hq * d), (self.hq * d) ** -0.5),
                gate_up=uniform((2 * f, h), h ** -0.5), down=uniform((h, f), f ** -0.5)))
        self.norm = uniform((h,), 1.0).abs_() + 0.5
        self.lm_head = uniform((VOCAB, h), h ** -0.5)
        self.cos, self.sin = rope_tables(max_pos, d)

    def params(self):
        n = self.embed.numel() + self.norm.numel() + self.lm_head.numel()
        return n + sum(t.numel() for ly in self.layers for t in ly.values())

    def new_cache(self, batch, max_len):
        """Per layer (K, V), each (batch, kv_heads, max_len, head_dim), random non-zero."""
        return [(uniform((batch, self.hkv, max_len, self.d), 1.0), uniform((batch, self.hkv, max_len, self.d), 1.0))
                for _ in self.layers]

    def forward(self, tokens, pos0, cache):
        b, s = tokens.shape
        hq, hkv, d = self.hq, self.hkv, self.d
        x = F.embedding(tokens, self.embed)
        cos = self.cos[pos0:pos0 + s].unsqueeze(1)
        sin = self.sin[pos0:pos0 + s].unsqueeze(1)
        for ly, (kc, vc) in zip(self.layers, cache):
            qkv = F.linear(rms_norm(x, ly["ln1"]), ly["qkv"])
            q, k, v = qkv.split((hq * d, hkv * d, hkv * d), dim=-1)
            q, k = rope(q.view(b, s, hq, d), k.view(b, s, hkv, d), cos, sin)
            v = v.view(b, s, hkv, d)
            write_cache(kc, vc, k, v, pos0)
            if pos0 == 0:
                y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2),
                                                   is_causal=True, enable_gqa=True)
            else:
                y = F.scaled_dot_product_attention(q.transpose(1, 2), kc[:, :, :pos0 + s], vc[:, :, :pos0 + s],
                                                   enable_gqa=True)  # decode: s == 1, no mask needed
            x = x + F.linear(y.transpose(1, 2).reshape(b, s, hq * d), ly["o"])
            x = x + F.linear(swiglu(F.linear(rms_norm(x, ly["ln2"]), ly["gate_up"])), ly["down"])
        logits = F.linear(rms_norm(x[:, -1], self.norm), self.lm_head)
        return logits.argmax(dim=-1)
