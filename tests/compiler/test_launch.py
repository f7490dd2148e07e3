"""The launch path and the per-graph tuning record: tuned kernels launch exactly as default
mode's do, tuner.compiler.stats counts how each graph's kernel configs were decided and the
seconds spent, TUNER_TUNE_BUDGET_S bounds that time, and identical kernels tune once."""
import pytest
import torch
import torch.nn.functional as F

import tuner.compiler.stats as stats
from helpers import assert_close
from tuner.compiler.runtime import launch
from tuner.points import triton_kernel as point

MODES = ["default", "max-autotune-no-cudagraphs"]


def _fn(x, w, y):
    # a row and a column reduction, a tiled transpose and a 1-D pointwise kernel
    return F.layer_norm(x, x.shape[-1:]) * w, (y.t() * 2).contiguous().sin(), x.sum(0), (x[:, :3] - 1).exp()


def _args(seed=0, device="cpu", dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(s, generator=g).to(device, dtype) for s in ((6, 20), (20,), (13, 21))]


@pytest.fixture
def launchers(monkeypatch):
    """Every Launcher built from here on, in order."""
    made = []
    init = launch.Launcher.__init__

    def record(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)
    monkeypatch.setattr(launch.Launcher, "__init__", record)
    return made


@pytest.fixture(autouse=True)
def _cheap(monkeypatch):
    from tuner.cache import reset_cache
    monkeypatch.setenv("TUNER_BENCH_REPS", "1")
    monkeypatch.setenv("TUNER_BENCH_WARMUP", "0")
    for var in ("TUNER_SEARCH", "TUNER_TUNE_BUDGET_S", "TUNER_CACHE"):
        monkeypatch.delenv(var, raising=False)
    reset_cache()
    yield
    reset_cache()


class _Compiled:
    """What JITFunction.run returns on a GPU (a compiled kernel the launcher can run directly),
    for the interpreter, which returns nothing: run() launches through the real kernel."""

    def __init__(self, launcher, launch_fn):
        self.launcher, self.launch_fn = launcher, launch_fn
        self.function = self.packed_metadata = object()
        self.runs = 0

    def _init_handles(self):
        pass

    # the tensors of the launch in progress: the direct path hands run() their data pointers
    # (ints), which the interpreter cannot launch with
    current = []

    def run(self, grid, gy, gz, stream, function, metadata, h1, h2, h3, *args):
        assert (grid, gy, gz) == (self.launcher.grid(self.launcher.config)[0], 1, 1)
        assert function is self.function and metadata is self.packed_metadata
        nconsts = len(self.launcher._consts)
        ptrs = list(args[:len(args) - nconsts])
        tensors = _Compiled.current[-1]
        assert all(type(p) is int for p in ptrs) and ptrs == [t.data_ptr() for t in tensors]
        self.runs += 1
        self.launch_fn(self.launcher, self.launcher.config, list(tensors))


@pytest.mark.parametrize("mode", MODES)
def test_tuned_kernels_take_the_direct_launch_path_as_default_mode_does(mode, monkeypatch, launchers):
    # On CPU the direct path is off (the interpreter returns no compiled kernel): here it is
    # made available with a stand-in compiled kernel, so the path itself is checked; the GPU
    # test below checks it with Triton's real one.
    real_launch = launch.Launcher._launch
    compiled = []

    def launch_returning_a_kernel(self, cfg, args):
        real_launch(self, cfg, args)
        compiled.append(_Compiled(self, real_launch))
        return compiled[-1]
    monkeypatch.setattr(launch.Launcher, "_launch", launch_returning_a_kernel)
    real_pointers = launch.pointers

    def pointers_noting_the_tensors(args):
        _Compiled.current[:] = [args]
        return real_pointers(args)
    monkeypatch.setattr(launch, "pointers", pointers_noting_the_tensors)
    monkeypatch.setattr(launch, "_FAST", True)
    monkeypatch.setattr(launch, "_stream_getter", lambda: (lambda device: 0))
    args = _args()
    cf = torch.compile(_fn, backend="tuner", mode=mode)
    assert_close(cf(*args), _fn(*args))
    assert len(launchers) == 4
    for k in launchers:
        assert k.config is not None and k._grid == k.grid(k.config)   # on the direct path
        assert (k.decision is not None) == (mode != "default")
        if mode == "default":
            assert k.config == point.default_config(k.meta)
    before = launch.JIT_LAUNCHES
    for i in range(3):
        args = _args(i + 1)
        assert_close(cf(*args), _fn(*args))
    assert launch.JIT_LAUNCHES == before
    first_call = {id(c.launcher): c for c in compiled}   # the kernel each launcher kept
    assert sum(c.runs for c in first_call.values()) == 3 * len(launchers)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", MODES)
def test_jit_launches_stay_flat_after_the_first_call_in_every_mode(mode):
    from tuner.compiler.runtime import launch
    args = _args(device="cuda", dtype=torch.bfloat16)
    cf = torch.compile(_fn, backend="tuner", mode=mode)
    for _ in range(2):
        cf(*args)
    before = launch.JIT_LAUNCHES
    for _ in range(5):
        out = cf(*args)
    torch.cuda.synchronize()
    assert launch.JIT_LAUNCHES == before, f"{mode}: {launch.JIT_LAUNCHES - before} launches through JITFunction.run"
    for o, r in zip(out, _fn(*[a.float() for a in args])):
        torch.testing.assert_close(o.float(), r, atol=5e-2, rtol=5e-2)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["default", "reduce-overhead"])
@pytest.mark.parametrize("static", ["1", "0"])
def test_fresh_kernels_launch_through_the_static_launcher_after_their_first(static, mode, monkeypatch):
    # runtime/static_launch.py fresh(): a kernel compiled in this process is launched from its
    # cubin through torch's static launcher after its first launch (as the stock compiler
    # does), captured into CUDA graphs that way too; TUNER_STATIC_LAUNCH=0 keeps Triton's
    from tuner.compiler.runtime import static_launch
    monkeypatch.setenv("TUNER_STATIC_LAUNCH", static)
    torch._dynamo.reset()
    args = _args(seed=3, device="cuda", dtype=torch.bfloat16)
    cf = torch.compile(_fn, backend="tuner", mode=mode)
    before = static_launch.FRESH
    cf(*args)
    taken = static_launch.FRESH - before
    for seed in (4, 5, 6):
        fresh = _args(seed=seed, device="cuda", dtype=torch.bfloat16)
        out = cf(*fresh)
        torch.cuda.synchronize()
        for o, r in zip(out, _fn(*[a.float() for a in fresh])):
            torch.testing.assert_close(o.float(), r, atol=5e-2, rtol=5e-2)
    assert (taken >= 3) if static == "1" else (taken == 0), taken


def test_autotune_lets_the_point_decide_every_kernel_and_default_mode_none(launchers):
    args = _args()
    stats.reset()
    assert_close(torch.compile(_fn, backend="tuner")(*args), _fn(*args))
    assert all(k.decision is None for k in launchers)
    s = stats.last()
    assert s.decisions == s.tuning_seconds == 0
    torch._dynamo.reset()
    launchers.clear()
    assert_close(torch.compile(_fn, backend="tuner", mode="max-autotune-no-cudagraphs")(*args), _fn(*args))
    assert {k.kind for k in launchers} == {"pointwise", "pointwise_tiled", "persistent_reduction"}
    for k in launchers:
        # every kind searches its space by coordinate descent from its default
        d = k.decision
        assert d.namespace == f"triton.{k.kind}" and d.source == "coordinate_descent"
        assert d.timings and point.default_config(k.meta) in [point.config_dict(c) for c, _ in d.timings]
        assert d.problem.startswith(k.problem().split(":")[0])


def test_stats_count_each_graphs_decisions_by_source_and_the_report_says_so(monkeypatch, capsys):
    monkeypatch.setenv("TUNER_LOGS", "autotune")
    args = _args()
    stats.reset()
    torch.compile(_fn, backend="tuner", mode="max-autotune-no-cudagraphs")(*args)
    first = stats.last()
    assert first.decisions == first.decisions_measured == first.kernels >= 3
    assert first.decisions_cache == first.decisions_heuristic == 0 and first.tuning_seconds > 0
    err = capsys.readouterr().err
    assert f"autotune graph {first.graph}: {first.kernels} kernel config decisions" in err
    assert f"0 heuristic, 0 cache, {first.kernels} measured" in err
    # the same graph compiled again (a new process would do the same): every answer cached
    torch._dynamo.reset()
    torch.compile(_fn, backend="tuner", mode="max-autotune-no-cudagraphs")(*args)
    again = stats.last()
    assert again is not first and again.decisions_cache == again.kernels and again.decisions_measured == 0
    assert again.tuning_seconds < first.tuning_seconds
    assert f"autotune graph {again.graph}: {again.kernels} kernel config decisions" in capsys.readouterr().err
    total = stats.totals()
    assert total.decisions_measured == first.kernels and total.decisions_cache == again.kernels
    assert again.as_dict()["decisions_cache"] == again.kernels


def test_identical_kernels_of_different_graphs_are_tuned_once(launchers):
    # one kernel source in two graphs (two functions, compiled separately): one measurement
    def f(x):
        return torch.softmax(x, -1)

    def g(x):
        return torch.softmax(x, -1)
    x = torch.randn(8, 33)
    stats.reset()
    torch.compile(f, backend="tuner", mode="max-autotune-no-cudagraphs")(x)
    torch.compile(g, backend="tuner", mode="max-autotune-no-cudagraphs")(x)
    a, b = stats.graphs()
    assert (a.decisions_measured, b.decisions_cache, b.decisions_measured) == (1, 1, 0)
    assert launchers[0].source == launchers[1].source and launchers[0].config == launchers[1].config


def test_tuning_budget_keeps_the_best_so_far_then_the_defaults_and_says_so(monkeypatch, capsys,
                                                                          launchers):
    monkeypatch.setenv("TUNER_TUNE_BUDGET_S", "1e-6")
    monkeypatch.setenv("TUNER_LOGS", "autotune")
    args = _args()
    stats.reset()
    cf = torch.compile(_fn, backend="tuner", mode="max-autotune-no-cudagraphs")
    assert_close(cf(*args), _fn(*args))
    s = stats.last()
    # the first kernel measures its default (a search always measures once), then stops; the
    # budget is spent: the others measure nothing and keep their default configs
    assert s.decisions_measured == s.decisions_budget_cut == 1
    assert s.decisions_budget_default == s.kernels - 1 >= 2
    first, *rest = launchers
    assert first.decision.stopped_early and first.decision.n_measured == 1
    for k in rest:
        assert k.decision.source == "budget" and k.config == point.default_config(k.meta)
    err = capsys.readouterr().err
    assert "tuning budget of 1e-06 s spent (TUNER_TUNE_BUDGET_S): 1 search(es) stopped with the " \
           f"best so far, {s.kernels - 1} kernel(s) kept their default config" in err
    assert "default" in err and "nothing measured" in err
    assert_close(cf(*args), _fn(*args))   # later calls: no more tuning
    assert stats.last().decisions == s.kernels


def test_answers_known_to_the_cache_are_used_whatever_the_budget(monkeypatch):
    args = _args()
    stats.reset()
    torch.compile(_fn, backend="tuner", mode="max-autotune-no-cudagraphs")(*args)
    n = stats.last().kernels
    torch._dynamo.reset()
    monkeypatch.setenv("TUNER_TUNE_BUDGET_S", "1e-9")
    torch.compile(_fn, backend="tuner", mode="max-autotune-no-cudagraphs")(*args)
    s = stats.last()
    assert s.decisions_cache == n and s.decisions_budget_default == s.decisions_budget_cut == 0


def test_cached_config_that_fails_to_launch_falls_back_to_default_and_retunes(monkeypatch, launchers):
    """A cached answer that passes validation but does not launch (a config Triton rejects on
    this machine) must not fail the compile: the call runs the default config, the answer is
    discarded and the kernel tunes again without it."""
    import time as _time
    fn = lambda x: (x.sin() * 2).exp()  # noqa: E731
    x = torch.randn(1000)
    real = launch.Launcher._launch

    def slow_default(self, cfg, args):   # a timing fixture: the default measures slowest
        if cfg == self.default:
            _time.sleep(0.02)
        return real(self, cfg, args)
    monkeypatch.setattr(launch.Launcher, "_launch", slow_default)
    assert_close(torch.compile(fn, backend="tuner", mode="max-autotune-no-cudagraphs")(x), fn(x))
    tuned = launchers[-1]
    bad = dict(tuned.config)
    assert bad != tuned.default and tuned.decision.source != "cache"

    def broken(self, cfg, args):          # the same answer now fails at launch
        if cfg == bad:
            raise RuntimeError("out of resources on this machine")
        return real(self, cfg, args)
    monkeypatch.setattr(launch.Launcher, "_launch", broken)
    torch._dynamo.reset()
    cf = torch.compile(fn, backend="tuner", mode="max-autotune-no-cudagraphs")
    assert_close(cf(x), fn(x))            # the first call: cache answer fails, default runs
    again = launchers[-1]
    assert again is not tuned and again.config != bad
    assert again.decision.source != "cache"   # tuned again, the bad answer not reused
    assert_close(cf(x), fn(x))


@pytest.mark.gpu
def test_precompile_builds_every_kernel_before_the_first_call():
    # options={"precompile": True}: the graph's kernels are compiled in a thread pool when the
    # graph is; the first call finds each in Triton's cache (without it, none is built yet)
    from torch.fx.experimental.proxy_tensor import make_fx

    from tuner.compiler.compile_graph import compile_graph
    from tuner.compiler.runtime.launch import Launcher

    def f(x, y):
        return (x.sin() + y).sum(1), torch.softmax(x * y, -1), x.t().contiguous() * 2

    def cached(call):
        fns = {id(v.fn): v.fn for v in call.fn.__globals__.values() if isinstance(v, Launcher)}
        assert len(fns) >= 2
        caches = [getattr(fn, "device_caches", None) for fn in fns.values()]
        if any(c is None for c in caches):
            pytest.skip("this Triton keeps no device_caches on its JITFunction")
        return [sum(len(entry[0]) for entry in c.values()) for c in caches]
    # sizes are in the sources: each run its own kernels, none built by an earlier test
    for precompile, shape in ((False, (61, 97)), (True, (67, 101))):
        x, y = torch.randn(shape, device="cuda"), torch.randn(shape, device="cuda")
        gm = make_fx(f)(x, y)
        call = compile_graph(gm, [x, y], "default", {"precompile": precompile})
        counts = cached(call)
        assert all(counts) if precompile else not any(counts), counts
        for got, want in zip(call([x, y]), f(x, y)):
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_precompile_option_is_accepted_and_a_no_op_under_the_interpreter():
    x = torch.randn(5, 7)
    out = torch.compile(lambda x: x.cos() * 2, backend="tuner", options={"precompile": True})(x)
    assert_close(out, x.cos() * 2)
    assert launch.precompile([], "cpu") == 0


def test_a_graphs_own_tuning_budget_bounds_its_kernels():
    # CompileContext.tune_budget_s (the mm point's probe compiles set it) wins over
    # TUNER_TUNE_BUDGET_S: at 0 every kernel keeps its default config, nothing measured
    from tuner.compiler.compile_graph import compile_graph
    from tuner.compiler.context import CompileContext
    x = torch.randn(33, 17)
    f = lambda x: (torch.softmax(x, -1) * 2, x.sum(0))   # noqa: E731
    gm = torch.fx.experimental.proxy_tensor.make_fx(f)(x)
    stats.reset()
    call = compile_graph(gm, [x], ctx=CompileContext("max-autotune-no-cudagraphs", {}, tune_budget_s=0))
    out = call([x])
    assert_close(out, f(x))
    s = call.stats
    assert s.kernels >= 1 and s.decisions_budget_default == s.kernels and s.decisions_measured == 0


@pytest.mark.gpu
@pytest.mark.parametrize("background", [False, True])
def test_max_autotune_builds_every_kernels_first_candidates_ahead_in_one_batch(monkeypatch, background):
    # compile_graph hands the compile workers the first candidates of every tuning kernel in
    # one batch (launch.prebuild); the first call's tuning then finds them built and sends none
    # of them to the workers again. In the background (TUNER_PREBUILD_BACKGROUND) the graph
    # returns at once and each kernel's tuning waits for its own candidates
    from torch.fx.experimental.proxy_tensor import make_fx

    from tuner import compile_workers as cw
    from tuner.compiler.compile_graph import compile_graph
    from tuner.compiler.runtime import launch
    monkeypatch.setenv("TUNER_COMPILE_PROCESSES", "4")
    monkeypatch.setenv("TUNER_PREBUILD_BACKGROUND", "1" if background else "0")
    batches = []
    drive = cw._drive
    monkeypatch.setattr(cw, "_drive", lambda jobs, *rest: batches.append(list(jobs)) or drive(jobs, *rest))

    def f(x, y):   # the last two outputs: one kernel twice (one tuning problem, planned once)
        return (x.sin() + y).sum(1), torch.softmax(x * y, -1), (x * 3 - y).exp(), (y * 3 - x).exp()
    x, y = torch.randn(73, 389, device="cuda"), torch.randn(73, 389, device="cuda")
    gm = make_fx(f)(x, y)
    stats.reset()
    call = compile_graph(gm, [x, y], "max-autotune-no-cudagraphs", {})
    s = stats.last()
    assert s.prebuilt >= 3 and len(batches) == 1 and len(batches[0]) == s.prebuilt
    ahead = {(j.path, j.name, j.kwargs) for j in batches[0]}
    assert len(ahead) == len(batches[0])   # nothing built twice
    assert bool(launch.BUILDING) == background
    for got, want in zip(call([x, y]), f(x, y)):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)
    later = {(j.path, j.name, j.kwargs) for b in batches[1:] for j in b}
    assert not ahead & later, ahead & later
    assert s.decisions_measured + s.decisions_heuristic + s.decisions_cache >= 1
    assert not launch.BUILDING                     # every config built ahead was waited for


@pytest.mark.gpu
def test_max_autotune_builds_the_mm_probes_candidates_before_measuring(monkeypatch):
    # the mm point measures a matmul by compiling a probe of each choice; compile_graph, after
    # lowering, first builds every probe's template candidates (and the kernels beside them)
    # for the matmuls the lowering left to measure in one batch (mm_probes.prebuild), so the
    # probes' own tuning sends none of them to the workers again
    from torch.fx.experimental.proxy_tensor import make_fx

    from tuner import compile_workers as cw
    from tuner.compiler.compile_graph import compile_graph
    from tuner.compiler import mm_probes
    monkeypatch.setenv("TUNER_COMPILE_PROCESSES", "4")
    monkeypatch.setenv("TUNER_MM", "auto")
    monkeypatch.setenv("TUNER_HEURISTICS", "off")   # no heuristic answers: every matmul is probed
    batches = []
    run_jobs = cw.run_jobs
    monkeypatch.setattr(cw, "run_jobs", lambda jobs, workers: batches.append(list(jobs)) or run_jobs(jobs, workers))

    def f(a, w, q):   # a linear layer with a ReLU, and attention's q @ k^T (bare)
        return torch.relu(a @ w.t()), torch.bmm(q, q.transpose(1, 2))
    kw = dict(device="cuda", dtype=torch.bfloat16)
    a, w, q = torch.randn(512, 256, **kw), torch.randn(384, 256, **kw), torch.randn(4, 128, 64, **kw)
    gm = make_fx(f)(a, w, q)
    planned = []
    prebuild_probes = mm_probes.prebuild
    monkeypatch.setattr(mm_probes, "prebuild", lambda problems, compile_fn: planned.extend(
        p.signature() for p, _ in problems) or prebuild_probes(problems, compile_fn))
    stats.reset()
    call = compile_graph(gm, [a, w, q], "max-autotune-no-cudagraphs", {})
    assert planned == ["mm:b1:m512:n384:k256:bfloat16:t01", "bmm:b4:m128:n128:k64:bfloat16:t01:bare"]
    s = stats.last()
    first = {(j.path, j.name, j.kwargs) for j in batches[0]}
    # both probes' template seed sets, in the one batch
    assert len({j.path for j in batches[0] if j.name.startswith("tk_template")}) >= 2
    assert sum(j.name.startswith("tk_template") for j in batches[0]) >= 2 * 4
    assert s.prebuilt >= len(first) and dict(s.mm_backend) and sum(s.mm_backend.values()) == 2
    later = {(j.path, j.name, j.kwargs) for b in batches[1:] for j in b}
    assert not first & later, first & later
    for got, want in zip(call([a, w, q]), f(a, w, q)):
        torch.testing.assert_close(got, want, rtol=2e-2, atol=2e-2)


def test_tuning_measures_store_only_outputs_in_place_and_copies_what_a_kernel_reads(monkeypatch):
    # measuring writes into the real output where a kernel only stores into it (no device
    # temporary raises the first call's peak); an argument it also reads or updates in place
    # (an input mutated by the graph, an accumulation) is measured on a copy, so the tuned
    # call's result is still eager's
    copied = []
    real = point.clone_strided

    def counting(t):
        copied.append(t)
        return real(t)
    monkeypatch.setattr(point, "clone_strided", counting)

    def fn(x, acc):
        acc.add_(x * 2)
        return (x + 1).sin()
    x, acc = torch.randn(8, 16), torch.randn(8, 16)
    acc_ref = acc.clone()
    stats.reset()
    out = torch.compile(fn, backend="tuner", mode="max-autotune-no-cudagraphs")(x, acc)
    assert_close(out, fn(x, acc_ref))
    assert_close(acc, acc_ref)   # tuned once, added once
    assert stats.last().decisions_measured >= 1
    assert copied and all(t.data_ptr() == acc.data_ptr() for t in copied), [t.shape for t in copied]


def test_read_back_finds_the_outputs_a_kernel_loads_or_updates():
    src = ("@triton.jit\ndef k(in_ptr0, out_ptr1, out_ptr2, out_ptr3, xnumel, XBLOCK: tl.constexpr):\n"
           "    a = tl.load(in_ptr0 + x)\n    tl.store(out_ptr1 + x, a)\n"
           "    tl.store(out_ptr2 + x, tl.load(out_ptr2 + x) + a)\n    tl.atomic_add(out_ptr3 + x, a)\n")
    assert point.read_back(src, [1, 2, 3]) == [2, 3]
    assert point.read_back("", [1, 2]) == [1, 2]   # nothing to read: all copied


def test_a_kernel_writing_in_place_over_its_input_is_measured_on_a_copy():
    # relu(a @ b) * 2 runs in place over the matmul's result (one storage, two arguments):
    # measuring in place would apply it once per candidate
    a, b = torch.randn(16, 24), torch.randn(24, 8)
    f = lambda a, b: torch.relu(a @ b) * 2   # noqa: E731
    stats.reset()
    out = torch.compile(f, backend="tuner", mode="max-autotune-no-cudagraphs")(a, b)
    assert "reuse in place" in stats.last().source and stats.last().decisions_measured >= 1
    assert_close(out, f(a, b))


def test_a_sized_kernel_has_stand_in_arguments_with_its_compiling_sizes(launchers):
    # precompile builds a kernel of a graph with symbolic sizes ahead of its first call too:
    # stand-in pointers, then the size arguments at the sizes the graph was compiled for
    def f(x):
        return torch.softmax(x * 2, -1) + 1
    cf = torch.compile(f, backend="tuner", dynamic=True)
    x = torch.randn(5, 7, 9)
    assert_close(cf(x), f(x))
    sized = [k for k in launchers if k.nsizes]
    assert sized, [k.kind for k in launchers]
    for k in sized:
        args = k.placeholder_args("cpu")
        assert args is not None
        ptrs, sizes = args[:-k.nsizes], args[-k.nsizes:]
        assert all(isinstance(p, torch.Tensor) for p in ptrs) and len(ptrs) == len(k.meta.dtypes)
        assert set(sizes) <= {5, 7, 9}
        assert k._extents(*sizes)[0] == k.meta.xnumel   # the bucket the first call launches in
