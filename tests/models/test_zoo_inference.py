"""Inference with each model's default settings (caches on), eval mode, no_grad: the compiled
module against eager at two shapes, through one compiled module."""
import pytest
import torch
from torch import nn

from model_zoo import CASES, INFERENCE, assert_outputs_close
from zoo_run import ATOL, RTOL, check_compiles, clone_inputs, describe, phase


@pytest.mark.parametrize("name", INFERENCE)
def test_inference(name):
    case = CASES[name]
    with case.context():
        model = case.build()
        if isinstance(model, nn.Module):
            model.eval()
        compiled = torch.compile(model, backend="tuner")
        for i in (0, 1):
            kwargs = case.inputs(i)
            where = f"{name} shape {i} ({describe(kwargs)})"
            with torch.no_grad():
                with phase(f"{where}: eager"):
                    ref = model(**clone_inputs(kwargs))
                with phase(f"{where}: compiled"):
                    out = compiled(**kwargs)
            with phase(f"{where}: compiled vs eager"):
                assert_outputs_close(out, ref, RTOL, ATOL, where)
        with phase(f"{name}: compile count"):
            check_compiles(compiled, model)
