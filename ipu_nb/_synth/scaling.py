"""The ``scale_kernel`` knob: a compiler change that makes some kernels' samples take longer (or shorter).

A factor multiplies the cycles of every sample of the kernel before the timeline is laid
out, so the superstep structure holds: a phase still ends when its slowest tile ends, and
every later sample moves by what the phase gained or lost. The names are the kernels the
compute samples carry: at phase granularity (and at graph and region, whose samples
cover the same commands) a command's kernel; at step granularity each kernel call.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

import numpy as np

from .plan import Command

__all__ = ["MAX_FACTOR", "apply_scale", "check_scale", "kernel_names"]

#: The largest factor: a sample must stay far below the 32-bit counter's 2.86 s.
MAX_FACTOR = 100.0


def kernel_names(commands: list[Command], step: bool) -> list[str]:
    """The kernels the generated compute samples carry, sorted."""
    if step:
        return sorted({kernel for cmd in commands for kernel, _ in cmd.kernel_calls()})
    return sorted({cmd.kernel for cmd in commands})


def check_scale(scale: object, commands: list[Command], step: bool, workload: str) -> dict[str, float]:
    """`scale` as {kernel: factor}: a mapping of generated kernels to numbers in (0, `MAX_FACTOR`]."""
    if not isinstance(scale, Mapping):
        raise TypeError(f"scale_kernel must be a mapping of kernel name to factor, got {type(scale).__name__}")
    names = kernel_names(commands, step)
    out: dict[str, float] = {}
    for name, factor in scale.items():
        if not isinstance(name, str) or name not in names:
            raise ValueError(
                f"unknown kernel {name!r} in scale_kernel: the generated {workload} profile runs {', '.join(names)}"
            )
        if isinstance(factor, bool) or not isinstance(factor, (int, float, np.integer, np.floating)):
            raise TypeError(f"scale_kernel factor for {name!r} must be a number, got {factor!r}")
        value = float(factor)
        if not (math.isfinite(value) and 0.0 < value <= MAX_FACTOR):
            raise ValueError(
                f"scale_kernel factor for {name!r} must be above 0 and at most {MAX_FACTOR:g}, got {factor!r}"
            )
        out[name] = value
    return out


def apply_scale(commands: list[Command], scale: Mapping[str, float], step: bool) -> list[Command]:
    """`commands` with the named kernels' cycles multiplied by their factors.

    At step granularity a command's calls split its cycles by their shares, so scaling one
    call multiplies that call's share: the command lasts Σ share × factor ÷ Σ share as long.
    """
    if not scale:
        return commands
    out = []
    for cmd in commands:
        if not step:
            factor = scale.get(cmd.kernel, 1.0)
            out.append(cmd if factor == 1.0 else dataclasses.replace(cmd, cycles=cmd.cycles * factor))
            continue
        calls = cmd.kernel_calls()
        scaled = tuple((kernel, share * scale.get(kernel, 1.0)) for kernel, share in calls)
        if scaled == calls:
            out.append(cmd)
            continue
        growth = sum(share for _, share in scaled) / sum(share for _, share in calls)
        out.append(dataclasses.replace(cmd, cycles=cmd.cycles * growth, calls=scaled))
    return out
