"""A training step of each decoder (and SDPA): train mode with dropout 0, the compiled
forward computes the loss (labels = token ids), backward; the loss and every gradient
against eager, at two shapes, through one compiled module."""
import pytest
import torch
from torch import nn

from model_zoo import CASES, TRAINING
from zoo_run import ATOL, RTOL, check_compiles, clone_inputs, describe, phase


def _step(fn, model, kwargs, grad_inputs):
    """Loss and gradients of one forward/backward: the parameters' for a module, the named
    inputs' for a plain function (its loss: the output against a fixed random cotangent)."""
    if isinstance(model, nn.Module):
        model.zero_grad(set_to_none=True)
        loss = fn(**kwargs).loss
        loss.backward()
        grads = {n: (None if p.grad is None else p.grad.clone()) for n, p in model.named_parameters()}
        return loss.detach(), grads
    out = fn(**kwargs)
    cotangent = torch.randn(out.shape, generator=torch.Generator().manual_seed(7))
    loss = (out * cotangent).sum()
    loss.backward()
    return loss.detach(), {n: kwargs[n].grad.clone() for n in grad_inputs}


@pytest.mark.parametrize("name", TRAINING)
def test_training_step(name):
    case = CASES[name]
    with case.context():
        model = case.build()
        if isinstance(model, nn.Module):
            model.train()
        compiled = torch.compile(model, backend="tuner")
        for i in (0, 1):
            kwargs = case.train_inputs(i)
            where = f"{name} train shape {i} ({describe(kwargs)})"
            with phase(f"{where}: eager"):
                ref_loss, ref_grads = _step(model, model, clone_inputs(kwargs), case.grad_inputs)
            with phase(f"{where}: compiled forward + backward"):
                loss, grads = _step(compiled, model, clone_inputs(kwargs), case.grad_inputs)
            torch.testing.assert_close(loss, ref_loss, rtol=RTOL, atol=ATOL,
                                       msg=lambda m: f"{where} loss: {m}")
            assert [n for n, g in grads.items() if g is None] == [n for n, g in ref_grads.items() if g is None]
            bad = []
            for n, ref in ref_grads.items():
                if ref is None:
                    continue
                try:
                    torch.testing.assert_close(grads[n], ref, rtol=RTOL, atol=ATOL)
                except AssertionError as e:
                    rel = ((grads[n] - ref).norm() / ref.norm().clamp_min(1e-30)).item()
                    bad.append(f"{n} (rel. error {rel:.3g}; {str(e).splitlines()[2].strip()})")
            assert not bad, f"{where}: {len(bad)} of {len(ref_grads)} gradients differ: " + "; ".join(bad[:6])
        with phase(f"{name}: compile count"):
            check_compiles(compiled, model)
