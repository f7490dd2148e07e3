"""Random ops drawn in generated kernels (compiler/lowerings/random.py): no ATen call for them,
their statistics on large draws, the per-call seed (torch.manual_seed reproduces a compiled
run, a next call draws anew), and TUNER_FALLBACK_RANDOM (CPU, interpreter)."""
import math

import pytest
import torch

import tuner.compiler.stats as stats

N = 1 << 15   # draws per statistic: a mean's standard error is 1/181 of the deviation
torch.manual_seed(0)


def compiled(fn, *args):
    """fn's compiled output on args, with the ATen ops that ran in ATen (fallbacks)."""
    torch._dynamo.reset()
    stats.reset()
    out = torch.compile(fn, backend="tuner")(*args)
    graphs = stats.graphs()
    assert graphs and not any(g.graph_fallback for g in graphs)
    fallbacks = set().union(*(set(g.fallbacks) | set(g.lowering_errors) for g in graphs))
    return out, fallbacks


def within(t, mean, std, k=6.0):
    """t's sample mean and variance agree with (mean, std**2) to k standard errors."""
    t = t.double().flatten()
    n = t.numel()
    assert abs(t.mean().item() - mean) < k * std / math.sqrt(n), (t.mean().item(), mean)
    # the variance's standard error, for a distribution with kurtosis at most ~9 (exponential)
    assert abs(t.var().item() - std ** 2) < k * std ** 2 * math.sqrt(8 / n), (t.var().item(), std ** 2)


x0 = torch.zeros(N)
CASES = {   # name: (fn of x0, mean, std, the ATen op that must not fall back)
    "rand": (lambda x: torch.rand(N, device=x.device), 0.5, math.sqrt(1 / 12), "aten.rand.default"),
    "randn": (lambda x: torch.randn(N, device=x.device), 0.0, 1.0, "aten.randn.default"),
    "rand_like": (lambda x: torch.rand_like(x), 0.5, math.sqrt(1 / 12), "aten.rand_like.default"),
    "randn_like": (lambda x: torch.randn_like(x) * 2 + 1, 1.0, 2.0, "aten.randn_like.default"),
    "uniform": (lambda x: x.clone().uniform_(-2, 4), 1.0, 6 / math.sqrt(12), "aten.uniform.default"),
    "normal_": (lambda x: x.clone().normal_(3, 0.5), 3.0, 0.5, "aten.normal_functional.default"),
    "normal_tensor": (lambda x: torch.normal(x + 1, 2.0), 1.0, 2.0, "aten.normal.Tensor_float"),
    "normal_tensors": (lambda x: torch.normal(x - 1, x + 3), -1.0, 3.0, "aten.normal.Tensor_Tensor"),
    "normal_floats": (lambda x: torch.normal(2.0, 0.25, (N,), device=x.device), 2.0, 0.25, "aten.normal.float_float"),
    "exponential": (lambda x: x.clone().exponential_(2.0), 0.5, 0.5, "aten.exponential.default"),
    "geometric": (lambda x: x.clone().geometric_(0.25), 4.0, math.sqrt(0.75) / 0.25,
                  "aten.geometric.default"),
    "log_normal": (lambda x: x.clone().log_normal_(0.0, 0.25).log(), 0.0, 0.25,
                   "aten.log_normal.default"),
    "bernoulli_p": (lambda x: torch.bernoulli(x, 0.3), 0.3, math.sqrt(0.21), "aten.bernoulli.p"),
    "bernoulli_tensor": (lambda x: torch.bernoulli(x + 0.8), 0.8, 0.4, "aten.bernoulli.default"),
    "randint": (lambda x: torch.randint(-5, 15, (N,), device=x.device).double(), 4.5, math.sqrt((20 ** 2 - 1) / 12),
                "aten.randint.low"),
    "random_to": (lambda x: x.clone().random_(10), 4.5, math.sqrt(99 / 12), "aten.random.to"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_statistics_without_fallback(name):
    fn, mean, std, op = CASES[name]
    out, fallbacks = compiled(fn, x0)
    assert op not in fallbacks and not fallbacks, fallbacks
    within(out, mean, std)


def test_cauchy_quartiles():
    # no mean or variance: a quarter of the draws below median - sigma, a quarter above + sigma
    out, fallbacks = compiled(lambda x: x.clone().cauchy_(1.0, 2.0), x0)
    assert not fallbacks
    assert abs((out < -1.0).double().mean().item() - 0.25) < 0.015
    assert abs((out > 3.0).double().mean().item() - 0.25) < 0.015


def test_integer_ranges():
    out, fallbacks = compiled(lambda x: (torch.randint(3, 7, (N,)), torch.randint_like(x, 5),
                                         x.to(torch.uint8).random_(), x.clone().random_(-3, 2),
                                         torch.randint(2 ** 40, (64,))), x0)
    assert not fallbacks
    a, b, c, d, e = out
    assert a.dtype == torch.int64 and set(a.tolist()) == {3, 4, 5, 6}
    assert b.dtype == torch.float32 and set(b.tolist()) == {0.0, 1.0, 2.0, 3.0, 4.0}
    assert c.dtype == torch.uint8 and c.min() < 10 and c.max() > 245
    assert set(d.tolist()) == {-3.0, -2.0, -1.0, 0.0, 1.0}
    assert e.min() >= 0 and e.max() < 2 ** 40 and e.max() > 2 ** 35


def test_bernoulli_rate_per_element():
    p = torch.tensor([0.0, 0.1, 0.5, 0.9, 1.0]).repeat(N, 1)
    out, fallbacks = compiled(torch.bernoulli, p)
    assert not fallbacks
    rate = out.mean(0)
    assert rate[0] == 0 and rate[4] == 1
    assert torch.allclose(rate, p[0], atol=0.02)


def test_rrelu_noise():
    x = torch.linspace(-3, 3, 4001)
    (out, noise), fallbacks = compiled(
        lambda t: torch.ops.aten.rrelu_with_noise_functional(t, torch.zeros_like(t), 0.1, 0.3, True), x)
    assert not fallbacks
    neg = x <= 0
    assert torch.equal(out[~neg], x[~neg]) and torch.equal(noise[~neg], torch.ones_like(x[~neg]))
    assert noise[neg].min() >= 0.1 and noise[neg].max() <= 0.3 and noise[neg].std() > 0.04
    torch.testing.assert_close(out[neg], x[neg] * noise[neg])


def test_seed_reproducible_and_fresh_per_call():
    fn = torch.compile(lambda x: (torch.rand_like(x), torch.randn(5, 7) + x), backend="tuner")
    torch._dynamo.reset()
    x = torch.zeros(5, 7)
    torch.manual_seed(3)
    a = fn(x)
    b = fn(x)   # no reseeding: the next call's seed draws other numbers
    torch.manual_seed(3)
    c = fn(x)
    assert torch.equal(a[0], c[0]) and torch.equal(a[1], c[1])
    assert not torch.equal(a[0], b[0]) and not torch.equal(a[1], b[1])
    assert not torch.equal(a[0], a[1])   # two ops of one graph: their own offsets


def test_random_values_fuse_into_consumer():
    # the draw, the comparison and the product in one kernel: the uniform values never stored
    fn = lambda x: torch.where(torch.rand_like(x) < 0.5, x * 2, 0.0).sum(0)  # noqa: E731
    out, fallbacks = compiled(fn, torch.ones(64, 32))
    assert not fallbacks and stats.last().kernels == 1
    assert set(out.unique().tolist()) <= set(range(0, 129, 2)) and 20 < out.mean() / 2 < 44


def test_zero_elements():
    out, fallbacks = compiled(lambda x: (torch.rand(0, 3), torch.randn_like(x)), torch.zeros(2, 0))
    assert not fallbacks and out[0].shape == (0, 3) and out[1].shape == (2, 0)


def _dropout_train(x):
    return torch.nn.functional.dropout(x, 0.4, training=True) * 3 + torch.rand_like(x)


def test_fallback_random_on_matches_eager(monkeypatch):
    monkeypatch.setenv("TUNER_FALLBACK_RANDOM", "1")
    x = torch.randn(16, 33)
    fns = [_dropout_train, lambda t: torch.bernoulli(t.sigmoid()) + torch.randn(16, 33),
           lambda t: t.clone().exponential_() + torch.randint(0, 9, (33,))]
    for fn in fns:
        torch.manual_seed(7)
        ref = fn(x)
        torch.manual_seed(7)
        out, fallbacks = compiled(fn, x)
        assert fallbacks   # the random ops ran in ATen...
        assert torch.equal(out, ref)   # ...so they drew eager's numbers


def test_default_dropout_draws_eagers_mask():
    x = torch.randn(16, 33, requires_grad=True)
    fn = lambda t: torch.nn.functional.dropout(t, 0.4, training=True) * 3  # noqa: E731
    torch.manual_seed(5)
    ref = fn(x)
    ref.sum().backward()
    ref_grad, x.grad = x.grad, None
    torch.manual_seed(5)
    out, fallbacks = compiled(fn, x)
    out.sum().backward()
    assert fallbacks == {"aten.native_dropout.default"}
    assert torch.equal(out, ref) and torch.equal(x.grad, ref_grad)


def test_dropout_in_kernels_when_fallback_off(monkeypatch):
    monkeypatch.setenv("TUNER_FALLBACK_RANDOM", "0")
    x = torch.randn(256, 128, requires_grad=True)
    out, fallbacks = compiled(lambda t: torch.nn.functional.dropout(t, 0.25, training=True), x)
    assert not fallbacks
    out.sum().backward()
    kept = out != 0
    assert abs(kept.double().mean().item() - 0.75) < 0.01
    torch.testing.assert_close(out[kept], x[kept] / 0.75)
    # the backward reads the forward's mask: gradient 1/(1-p) exactly where the value was kept
    torch.testing.assert_close(x.grad, kept.float() / 0.75)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["rand", "randn", "bernoulli_p", "randint", "exponential"])
def test_statistics_on_gpu(name):
    fn, mean, std, _ = CASES[name]
    # the factories take x's device: torch 2.11's dynamo traces a factory under an outer
    # `with torch.device("cuda")` as a CPU one (eager's answer differs from the graph's)
    out, fallbacks = compiled(fn, x0.cuda())
    assert out.is_cuda and not fallbacks
    within(out, mean, std)


@pytest.mark.parametrize("training", [True, False])
def test_rrelu_gradient(training):
    # the backward multiplies by the drawn slopes (training) or leaky_relu's mean slope
    x = torch.linspace(-3, 3, 601, requires_grad=True)
    fn = lambda t: torch.nn.functional.rrelu(t, 0.1, 0.3, training=training)  # noqa: E731
    out, fallbacks = compiled(fn, x)
    out.backward(torch.full_like(out, 2.0))
    backward = stats.graphs()[-1]   # (compiled when the backward runs)
    assert not fallbacks and not backward.fallbacks and len(stats.graphs()) == 2, backward.fallbacks
    slope = torch.where(x > 0, 1.0, out.detach() / x.detach()) if training else \
        torch.where(x > 0, 1.0, 0.2)
    keep = x.detach() != 0
    torch.testing.assert_close(x.grad[keep], 2 * slope[keep])


MULTINOMIAL = "aten.multinomial.default"


@pytest.mark.parametrize("replacement", [False, True])
def test_multinomial_frequencies_without_fallback(replacement):
    # one category per row (an exponential race) or 4 per row with replacement (a uniform draw
    # against the running sum): each category's frequency is its weight's share, a zero weight
    # is never drawn
    w = torch.tensor([0.1, 0.0, 0.6, 0.3, 1.0]).expand(N // 4, 5).contiguous()
    n = 4 if replacement else 1
    out, fallbacks = compiled(lambda t: torch.multinomial(t, n, replacement=replacement), w)
    assert MULTINOMIAL not in fallbacks and out.shape == (N // 4, n) and out.dtype == torch.int64
    freq = torch.bincount(out.flatten(), minlength=5).double() / out.numel()
    share = w[0].double() / w[0].sum()
    assert freq[1] == 0 and torch.allclose(freq, share, atol=6 * 0.5 / math.sqrt(out.numel())), freq


def test_multinomial_without_replacement_draws_distinct_categories():
    w = torch.rand(64, 10) + torch.arange(10) / 10
    w[:, 3] = 0
    out, fallbacks = compiled(lambda t: torch.multinomial(t, 6), w)
    assert MULTINOMIAL not in fallbacks and out.shape == (64, 6)
    assert all(len(set(r)) == 6 and 3 not in r for r in out.tolist())
    one, _ = compiled(lambda t: torch.multinomial(t[0], 2), w)   # a 1-d weight vector
    assert one.shape == (2,) and len(set(one.tolist())) == 2


def test_multinomial_in_aten_under_fallback_random(monkeypatch):
    monkeypatch.setenv("TUNER_FALLBACK_RANDOM", "1")
    w = torch.rand(8, 7)
    torch.manual_seed(3)
    ref = torch.multinomial(w, 3)
    torch.manual_seed(3)
    out, fallbacks = compiled(lambda t: torch.multinomial(t, 3), w)
    assert MULTINOMIAL in fallbacks and torch.equal(out, ref)
