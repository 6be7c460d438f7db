"""Comments on lines the rewrite deletes are kept, where deleting those lines by hand would leave them:
before the next statement of the block, or at the block's end; those of a line it rebuilds end that line."""

from triton_migrate.engine import migrate_source
from triton_migrate.rewrite.bound_comment import is_written_here

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
    """The comments of `source` less the one the rewrite writes on its masks' bounds."""
    return [line.strip() for line in source.splitlines()
            if line.strip().startswith("#") and not is_written_here(line.strip())]


def test_comments_of_deleted_lines_move_to_the_next_statement_or_the_block_end():
    new = migrate_source(KERNEL).new_source
    kernel = new[new.index("def k("):]  # (the launch guard's check before it has comments of its own)
    assert comment_lines(kernel) == ["# the target", "# only here", "# unused", "# nothing else"]
    lines = new.splitlines()
    # a creation that becomes its pointers keeps its line, and its comments with it
    assert lines[lines.index("    # the target") + 1] == "    y = y_ptr + pid * BLOCK + o_block  # rank 1"
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
    assert "    q[0] = tl.load(x, mask=tl.arange(0, BLOCK) < n)  # noqa: F821  # checked  # the load" in lines
    # the creation's line, rebuilt: its comment ends it
    assert "    x = x_ptr + tl.arange(0, BLOCK)  # the source" in lines
    assert "\n".join(lines).count("#") == INSIDE.count("#")  # no comment lost


WRAPPED = '''import triton
import triton.language as tl


@triton.jit
def kernel(Q, Out, q_len, stride_qm, stride_qk, BLOCK_M: tl.constexpr, D: tl.constexpr):
    start_m = tl.program_id(0)
    Q_block_ptr = tl.make_block_ptr(Q, (q_len, 2 * D), (stride_qm, stride_qk), (start_m * BLOCK_M, 0),
                                    (BLOCK_M, D), (1, 0))
    for i in range(2):
        q = tl.load(  # noqa: F821
            tl.advance(Q_block_ptr, (0, i * D)), boundary_check=(0,)
        )
        tl.store(Out + i, tl.sum(q))
'''


def test_a_pragma_comment_stays_on_the_first_line_of_a_statement_laid_out_over_several():
    """xformers' split-k kernel again: the rebuilt load ran past the line length and was laid out over four
    lines, its `# noqa: F821` after the closing bracket, as black puts a trailing comment; ruff reads a noqa
    on the line of what it silences, where the statement starts."""
    source = migrate_source(WRAPPED).new_source
    start = source.index("        q = tl.load(")
    assert source[start:].startswith("        q = tl.load(  # noqa: F821\n")
    assert source.count("# noqa: F821") == 1


# --- comments on what the rewrite adds to, replaces in or rebuilds (issue 27.5): each stays on the line of the
# parameter, argument or statement it described, not only somewhere in the output.

def line_of(source: str, text: str) -> str:
    (line,) = [line.strip() for line in source.splitlines() if text in line]
    return line


GUARDED = '''import triton
import triton.language as tl


# a pipelined loop
@triton.autotune(configs=[triton.Config({"BN": 64})], key=["N"])
# compiled per block width
@triton.jit
def kernel(
    x,  # the input
    y,
    M,
    N,  # columns
    stride,
    BM: tl.constexpr,  # rows per block
    # per block:
    BN: tl.constexpr,  # columns per block
    # nothing after
):
    i = tl.program_id(0)
    # the rows of x
    a = tl.make_block_ptr(x, (M, N), (stride, 1), (i * BM, 0), (BM, BN), (1, 0))  # one row block
    acc = tl.zeros((BM, BM), dtype=tl.float32)
    for k in range(0, N, BN):
        acc += tl.dot(tl.load(a, boundary_check=(0, 1)), tl.trans(tl.load(a, boundary_check=(0, 1))))
        a = tl.advance(a, (0, BN))  # next block
    tl.store(y + tl.arange(0, BM)[:, None], acc)
'''


def test_the_launch_flag_appended_to_commented_parameters_moves_no_comment():
    """fla's kernels: `BK: tl.constexpr,  # k block size` said "q block size" once USE_DESCRIPTORS was
    appended, which took the last comment; an own-line comment between parameters was copied."""
    new = migrate_source(GUARDED).new_source
    assert line_of(new, "BM: tl.constexpr") == "BM: tl.constexpr,  # rows per block"
    assert line_of(new, "BN: tl.constexpr") == "BN: tl.constexpr,  # columns per block"
    assert line_of(new, "USE_DESCRIPTORS: tl.constexpr") == "USE_DESCRIPTORS: tl.constexpr = False,"
    signature = new[new.index("def kernel("):new.index("\n):")]
    assert signature.count("# per block:") == 1
    assert signature.rstrip().endswith("USE_DESCRIPTORS: tl.constexpr = False,\n    # nothing after")


def test_the_launch_flag_after_a_last_parameter_without_a_comma_leaves_its_comment():
    source = GUARDED.replace("BN: tl.constexpr,  # columns per block\n    # nothing after\n",
                             "BN: tl.constexpr  # columns per block\n")
    new = migrate_source(source).new_source
    assert line_of(new, "BN: tl.constexpr") == "BN: tl.constexpr,  # columns per block"
    assert line_of(new, "USE_DESCRIPTORS: tl.constexpr") == "USE_DESCRIPTORS: tl.constexpr = False"


def test_the_launch_check_decorator_leaves_the_comments_above_and_between_decorators_in_place():
    new = migrate_source(GUARDED).new_source
    lines = [line for line in new.splitlines() if line.startswith(("#", "@"))]
    assert lines[:3] == ["# a pipelined loop", '@triton.autotune(configs=[triton.Config({"BN": 64})], key=["N"])',
                         "@launch_guard("]
    assert lines[3:] == ["# compiled per block width", "@triton.jit"]


def test_a_rebuilt_creation_keeps_its_line_comment_on_the_descriptor_it_became():
    """The comment that ended `a = tl.make_block_ptr(...)` went to `a_off1 = 0`, the offset after it."""
    new = migrate_source(GUARDED).new_source
    body = new[new.index("    # the rows of x"):]
    assert body.splitlines()[1:4] == ["    if USE_DESCRIPTORS:", "        a_desc = tl.make_tensor_descriptor(",
                                      "            x, [M, N], [stride, 1], [BM, BN]"]
    assert body.splitlines()[4:6] == ["        )  # one row block", "    a_off1 = 0"]
    assert line_of(new, "a_off1 += BN") == "a_off1 += BN  # next block"


HELPER = '''import triton
import triton.language as tl


@triton.jit
def _tile(x,  # the input
          BM: tl.constexpr,
          p  # the tile
          ):
    return tl.load(p, boundary_check=(0, 1))


@triton.jit
def kernel(x, y, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    i = tl.program_id(0)
    p = tl.make_block_ptr(x, (M, N), (stride, 1), (i * BM, 0), (BM, BN), (1, 0))
    t = _tile(x,  # the input
              BM,
              p  # the tile
              )
    tl.store(y + tl.arange(0, BM)[:, None], t)
'''


def test_a_block_pointer_parameter_replaced_by_its_parts_keeps_its_comment():
    """The last parameter, without a comma: its comment (and the line break before `)`) was dropped."""
    new = migrate_source(HELPER).new_source
    assert line_of(new, "p_base,") == \
        "p_base, p_shape0, p_shape1, p_stride0, p_start0, p_start1, p_block1: tl.constexpr  # the tile"
    assert line_of(new, "def _tile(") == "def _tile(x,  # the input"


def test_a_block_pointer_argument_replaced_by_its_parts_keeps_its_comment_and_the_closing_bracket():
    new = migrate_source(HELPER).new_source
    call = new[new.index("    t = _tile("):new.index("    tl.store(y")].splitlines()
    assert [line.strip() for line in call] == ["t = _tile(x,  # the input", "BM,",
                                               "x, M, N, stride, i * BM, 0, BN  # the tile", ")"]
