"""The kernels compiled without numba's reference counting (``tree_kernels.in_place``) must
neither allocate nor return an array: a caller with reference counting takes a returned
array as a new reference and frees it, so that an array given back by such a kernel is
freed twice (seen: ``malloc(): unaligned tcache chunk detected`` when a band solve
returned its right-hand side). Checked on the source of every such kernel: no call that
allocates, and no return of one of its arguments (every array it touches is one)."""

import ast
import inspect

import pytest

from vecnet.numerics import bodyspace, tree_kernels

ALLOCATING = {"empty", "zeros", "ones", "array", "empty_like", "zeros_like", "ones_like",
              "concatenate", "copy", "stack", "vstack", "hstack", "asarray", "isfinite"}


def without_reference_counting(module):
    tree = ast.parse(inspect.getsource(module))
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            text = ast.unparse(decorator)
            if text in ("in_place", "in_place_inline") or "_nrt=False" in text:
                yield f"{module.__name__}.{node.name}", node


KERNELS = dict(kernel for module in (tree_kernels, bodyspace)
               for kernel in without_reference_counting(module))


def test_the_hot_kernels_are_among_them():
    assert {"vecnet.numerics.tree_kernels.walk_into", "vecnet.numerics.tree_kernels."
            "open_chain_rates_into", "vecnet.numerics.tree_kernels._articulate_into",
            "vecnet.numerics.bodyspace.band_lu"} <= set(KERNELS)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_a_kernel_without_reference_counting_neither_allocates_nor_returns_an_array(name):
    node = KERNELS[name]
    arguments = {a.arg for a in node.args.args}
    for inner in ast.walk(node):
        if isinstance(inner, ast.Call):
            called = inner.func.attr if isinstance(inner.func, ast.Attribute) else \
                getattr(inner.func, "id", "")
            # np.isfinite of a scalar allocates nothing; of an array it would
            scalar = called == "isfinite" and all(
                isinstance(a, (ast.Name, ast.Subscript)) and not (
                    isinstance(a, ast.Name) and a.id in arguments) for a in inner.args)
            assert called not in ALLOCATING or scalar, (name, ast.unparse(inner))
        if isinstance(inner, ast.Return) and inner.value is not None:
            values = inner.value.elts if isinstance(inner.value, ast.Tuple) else [inner.value]
            for value in values:
                assert not (isinstance(value, ast.Name) and value.id in arguments), \
                    (name, ast.unparse(inner))
