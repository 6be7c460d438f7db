"""Comments on lines the rewrite deletes are kept, where deleting those lines by hand would leave them:
before the next statement of the block, or at the block's end; those of a line it rebuilds end that line."""

from triton_migrate.engine import migrate_source

KERNEL = '''import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.make_block_ptr(x_ptr, (n,), (1,), (pid * BLOCK,), (BLOCK,), (0,))
    # the target
    y = tl.make_block_ptr(y_ptr, (n,), (1,), (pid * BLOCK,), (BLOCK,), (0,))  # rank 1
    v = tl.load(x, boundary_check=(0,))
    tl.store(y, v, boundary_check=(0,))
    if pid == 0:
        tl.store(y, v + 1, boundary_check=(0,))
        # only here
        z = tl.make_block_ptr(y_ptr, (n,), (1,), (0,), (BLOCK,), (0,))  # unused
    else:
        # nothing else
        w = tl.make_block_ptr(y_ptr, (n,), (1,), (0,), (BLOCK,), (0,))
    return
'''


def comment_lines(source: str) -> list[str]:
    return [line.strip() for line in source.splitlines() if line.strip().startswith("#")]


def test_comments_of_deleted_lines_move_to_the_next_statement_or_the_block_end():
    new = migrate_source(KERNEL).new_source
    kernel = new[new.index("def k("):]  # (the launch guard's check before it has comments of its own)
    assert comment_lines(kernel) == ["# the target", "# only here", "# unused", "# nothing else"]
    lines = new.splitlines()
    # a creation that becomes its pointers keeps its line, and its comments with it
    assert lines[lines.index("    # the target") + 1] == "    y = y_ptr + o_block  # rank 1"
    # the last statement of the `if` block was deleted: its comments end the block
    assert lines[lines.index("    else:") - 2:lines.index("    else:")] == ["        # only here", "        # unused"]
    # a block with no statement left keeps a `pass`, under the comment
    assert lines[-3:] == ["        # nothing else", "        pass", "    return"]


INSIDE = '''import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    x = tl.make_block_ptr(  # the source
        x_ptr, (n,), (1,), (0,), (BLOCK,), (0,)
    )
    q: "VAR_ARGS_ARRAY"  # noqa: F821
    q[0] = tl.load(  # noqa: F821
        x, boundary_check=(0,)  # checked
    )  # the load
    tl.store(y_ptr + tl.arange(0, BLOCK), q[0])  # noqa: F821
'''


def test_comments_inside_a_rebuilt_statement_end_its_line_in_source_order():
    """xformers' split-k kernel: `q[i] = tl.load(  # noqa: F821` lost its noqa when the load was rebuilt, and
    ruff reported the name it had silenced."""
    lines = migrate_source(INSIDE).new_source.splitlines()
    assert "    q[0] = tl.load(x, mask=o_block < n)  # noqa: F821  # checked  # the load" in lines
    assert "    x = x_ptr + o_block  # the source" in lines  # the creation's line, rebuilt: its comment ends it
    assert "\n".join(lines).count("#") == INSIDE.count("#")  # no comment lost
