"""CUDA graph replay for reduce-overhead / max-autotune.

The first call runs eagerly (kernels tune and compile there); later calls replay a recorded
graph. A graph reads its inputs at the addresses it was recorded with, so:
- with address replay on (options["cudagraph_address_replay"]; off by default until its GPU
  tests have run on the device machine), a graph that mutates no input is recorded on the
  caller's own tensors and replayed, without any copy, whenever the inputs are at those
  addresses again (parameters always are; a benchmark's or a loop's reused buffers too). Up to
  MAX_ADDRESS_GRAPHS such graphs are kept (one per address pattern) in one memory pool;
- otherwise (and past that, or when the graph mutates an input) one graph recorded on static
  buffers of our own replays after copying the new inputs in (and the mutated ones back out);
  it is recorded again when a shape/stride/dtype changes.
Outputs are returned as fresh copies of the graph's static outputs, so results held across
calls stay valid (the next replay overwrites the static ones)."""
from __future__ import annotations

import torch

MAX_ADDRESS_GRAPHS = 4
RECORDINGS = 0     # graphs captured in this process (tests read it)


def _layout(a):
    return ((tuple(a.shape), tuple(a.stride()), a.dtype, a.device) if isinstance(a, torch.Tensor)
            else ("const", a))


class CUDAGraphed:
    def __init__(self, call, address_replay: bool = False):
        self.call = call
        self.address_replay = address_replay
        self.mutates = bool(getattr(call, "_mutated_inputs", ()))
        self.pool = None
        self.by_address: dict = {}    # (layout, data_ptr) per input -> (graph, static outputs)
        self.graph = None             # the copy-in graph
        self.key = None
        self.static_inputs = None
        self.static_outputs = None
        self.calls = 0

    def _key(self, args):
        return tuple(_layout(a) for a in args)

    def __call__(self, args):
        args = list(args)
        if self.calls == 0 or not all(not isinstance(a, torch.Tensor) or a.is_cuda for a in args):
            self.calls += 1
            return self.call(list(args))
        if self.address_replay and not self.mutates:
            addr = tuple((_layout(a), a.data_ptr()) if isinstance(a, torch.Tensor) else _layout(a)
                         for a in args)
            hit = self.by_address.get(addr)
            if hit is None and len(self.by_address) < MAX_ADDRESS_GRAPHS:
                hit = self.by_address[addr] = self._capture(args, shared_pool=True)
            if hit is not None:
                graph, outs = hit
                graph.replay()
                return self._copies(outs)
        key = self._key(args)
        if key != self.key:
            self.static_inputs = [torch.empty_strided(a.shape, a.stride(), dtype=a.dtype, device=a.device).copy_(a)
                                  if isinstance(a, torch.Tensor) else a for a in args]
            self.graph, self.static_outputs = self._capture(self.static_inputs)
            self.key = key
        for s, a in zip(self.static_inputs, args):
            if isinstance(a, torch.Tensor) and s.data_ptr() != a.data_ptr():
                s.copy_(a)
        self.graph.replay()
        for i in getattr(self.call, "_mutated_inputs", ()):
            if args[i].data_ptr() != self.static_inputs[i].data_ptr():
                args[i].copy_(self.static_inputs[i])
        return self._copies(self.static_outputs)

    @staticmethod
    def _copies(outs):
        # The static outputs are overwritten by the next replay: hand the caller copies, so a
        # result it keeps (a list of logits, saved activations for backward) stays valid.
        return [o.clone() if isinstance(o, torch.Tensor) else o for o in outs]

    def _capture(self, inputs, shared_pool=False):
        """(graph, static outputs) recorded reading `inputs` where they are now. The warm-up
        run is not repeated by the capture (a captured graph records, it does not execute), so
        only non-mutating graphs may be captured on the caller's tensors."""
        global RECORDINGS
        RECORDINGS += 1
        if shared_pool and self.pool is None:
            self.pool = torch.cuda.graph_pool_handle()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            self.call(list(inputs))     # warm-up on the side stream
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, pool=self.pool if shared_pool else None):
            outs = self.call(list(inputs))
        return graph, outs
