"""One statement laid out black's way within a line length (wrap.py says which statements): split inside the
last brackets of the line, an assignment's value wrapped in parentheses when it is a chain of operators, the
contents on one continuation line if they fit, else one element or operand a line (a trailing comma after the
last element, as black adds it), each line split again as long as it is too long.

The layout works on the statement's tokens, so it neither knows nor changes what they mean: only the
whitespace between them changes, and on a line that runs on it is the source's own (`H*K` stays `H*K`).
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, field, replace

# black's delimiter priorities (black/brackets.py): a line splits at the loosest-binding delimiter first.
COMPREHENSION, COMMA, TERNARY, LOGIC, STRING, COMPARATOR, DOT = 20, 18, 16, 14, 12, 10, 1
_MATH = {"|": 9, "^": 8, "&": 7, "<<": 6, ">>": 6, "+": 5, "-": 5, "*": 4, "/": 4, "//": 4, "%": 4, "@": 4,
         "**": 2}
_COMPARISONS = {"<", ">", "==", ">=", "<=", "!=", "in", "not", "is"}
_OPENING, _CLOSING = "([{", ")]}"
# Names that do not end an operand: after them a `-` or `*` is unary, a `not` is not `not in`.
_KEYWORDS = {"if", "else", "and", "or", "not", "in", "is", "lambda", "for", "async", "await", "return", "yield",
             "del", "assert", "raise", "from", "import", "global", "nonlocal", "with", "as", "while", "elif",
             "except", "try", "finally", "class", "def", "pass", "break", "continue", "match", "case"}
# Statements black lays out by rules of their own, which the rewrite never emits.
_UNSUPPORTED = {"assert", "import", "from", "del", "global", "nonlocal"}
_AUGMENTED = {"+=", "-=", "*=", "/=", "//=", "%=", "@=", "&=", "|=", "^=", ">>=", "<<=", "**="}


@dataclass(frozen=True)
class _Token:
    text: str
    space: str  # before it, where the line runs on
    kind: int  # the tokenize type
    extra: int = 0  # columns that follow it on its line (the statement's trailing comment)

    @property
    def ends_operand(self) -> bool:
        return (self.kind in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING) and self.text not in _KEYWORDS) or \
            self.text in _CLOSING


@dataclass
class _Line:
    tokens: list[_Token]
    indent: int  # columns
    inside: bool = False  # between brackets (delimiter splits apply)
    value: int | None = None  # where an assignment's value starts: it may be wrapped in parentheses
    explode: bool = False  # one element a line even if it fits (black's should_split_rhs)
    definition: bool = False  # a `def` line: split at its parameters (black's left_hand_split)


@dataclass
class _Layout:
    width: int
    step: str  # one level of continuation indentation, the file's own
    lines: list = field(default_factory=list)

    @property
    def step_columns(self) -> int:
        return len(self.step.expandtabs(4))



def layout(code: str, indent: int, width: int, step: str = "    ", extra: int = 0) -> str | None:
    """One statement's `code` (a decorator's with its `@`), which starts `indent` columns in, laid out black's
    way for lines of `width` columns; continuation lines are indented by `step`s (relative to the statement)
    and `extra` columns follow its last line. None: it has comments or multi-line strings inside."""
    tokens = _tokens(code)
    if tokens is None or tokens[0].text in _UNSUPPORTED:
        return None
    tokens[-1] = replace(tokens[-1], extra=extra)
    state = _Layout(width, step)
    definition = tokens[0].text == "def" or tokens[0].text == "async" and tokens[1].text == "def"
    lines = _lay(_Line(tokens, indent, value=None if definition else _value_start(tokens), definition=definition),
                 state)
    text = "\n".join(step * ((columns - indent) // state.step_columns) + _text(line) for columns, line in lines)
    return text if _parses(text, tokens[0].text) else None


def _parses(text: str, first: str) -> bool:
    """Whether the laid-out code is still Python: a layout this module gets wrong (a comprehension's tuple
    target split at its commas) leaves the statement on its one line instead of breaking it."""
    completion = {"@": "\ndef _(): pass", "def": " pass", "async": " pass"}.get(first, "")
    try:
        ast.parse(text + completion)
    except SyntaxError:
        return False
    return True


def _value_start(tokens: list[_Token]) -> int | None:
    """Where the value of an assignment or a `return` starts (black's optional parentheses go around it)."""
    depths, starts = _depths(tokens), []
    for i, token in enumerate(tokens[:-1]):
        if token.text == "lambda":  # its defaults are no assignment
            break
        if depths[i] == 0 and token.kind == tokenize.OP and (token.text == "=" or token.text in _AUGMENTED):
            starts.append(i + 1)
    if tokens[0].text == "return" and len(tokens) > 1:
        starts.append(1)
    return starts[-1] if starts else None


def _tokens(code: str) -> list[_Token] | None:
    """The tokens of `code` with the whitespace before each; None if it has a comment or a string over lines.
    An f-string (tokenized in parts from Python 3.12) is one token: its braces are no brackets."""
    offsets = [0]
    for line in code.splitlines(keepends=True):
        offsets.append(offsets[-1] + len(line))
    at = lambda position: offsets[position[0] - 1] + position[1]  # noqa: E731
    try:
        raw = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    found, end, nested, start = [], 0, 0, 0
    for token in raw:
        kind = tokenize.tok_name[token.type]
        if kind == "COMMENT" or (token.type == tokenize.STRING and "\n" in token.string):
            return None
        if kind in ("FSTRING_START", "TSTRING_START"):
            nested, start = nested + 1, start if nested else at(token.start)
        elif kind in ("FSTRING_END", "TSTRING_END"):
            nested -= 1
            if not nested:
                found.append(_Token(code[start:at(token.end)], code[end:start], tokenize.STRING))
                end = at(token.end)
        elif not nested and token.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                               tokenize.ENDMARKER):
            found.append(_Token(token.string, code[end:at(token.start)], token.type))
            end = at(token.end)
    for i, kept in enumerate(found):  # where a line break (or a backslash) was, the line runs on
        if i == 0:
            found[i] = replace(kept, space="")
        elif "\n" in kept.space or "\\" in kept.space:
            tight = found[i - 1].text in _OPENING or kept.text in _CLOSING or kept.text in ",:."
            found[i] = replace(kept, space="" if tight else " ")
    return found or None


def _text(tokens: list[_Token]) -> str:
    return "".join((t.space if i else "") + t.text for i, t in enumerate(tokens))


def _fits(line: _Line, state: _Layout) -> bool:
    return line.indent + len(_text(line.tokens)) + line.tokens[-1].extra <= state.width


def _depths(tokens: list[_Token]) -> list[int]:
    """Each token's bracket depth within the line (a closing bracket the line does not open stays at 0)."""
    depths, depth = [], 0
    for token in tokens:
        if token.text in _CLOSING and depth:
            depth -= 1
        depths.append(depth)
        if token.text in _OPENING:
            depth += 1
    return depths


def _pairs(tokens: list[_Token]) -> dict[int, int]:
    """Closing bracket index -> its opening bracket's, for the brackets the line both opens and closes."""
    pairs, stack = {}, []
    for i, token in enumerate(tokens):
        if token.text in _OPENING:
            stack.append(i)
        elif token.text in _CLOSING and stack:
            pairs[i] = stack.pop()
    return pairs


# --- black's transforms (black/linegen.py): a line that does not fit is split, each part laid out again ----------


def _lay(line: _Line, state: _Layout) -> list[tuple[int, list[_Token]]]:
    if _fits(line, state) and not line.explode and not _magic_comma(line.tokens):
        return [(line.indent, line.tokens)]
    splits = (_delimiter_split, _right_hand_split) if line.inside else (_right_hand_split,)
    for split in (_left_hand_split,) if line.definition else splits:
        parts = split(line, state)
        if parts is not None:
            return [laid for part in parts for laid in _lay(part, state)]
    return [(line.indent, line.tokens)]


def _delimiters(tokens: list[_Token]) -> dict[int, int]:
    """Index -> priority of each place the line may split, at its bracket depth 0 (black's BracketTracker):
    before an operator, after a comma; not in a lambda's parameters nor at a trailing comma."""
    depths, found = _depths(tokens), {}
    in_lambda = seen_for = False
    for i, token in enumerate(tokens):
        if depths[i] or i == 0:
            in_lambda = in_lambda or (i == 0 and token.text == "lambda")
            continue
        previous, text, name = tokens[i - 1], token.text, token.kind == tokenize.NAME
        if in_lambda:
            in_lambda = text != ":"
        elif text == "lambda":
            in_lambda = True
        elif text == ",":
            if i + 1 < len(tokens):
                found[i + 1] = COMMA
        elif name and text in ("for", "async"):
            found[i], seen_for = COMPREHENSION, True
        elif name and text == "if" and seen_for:
            found[i] = COMPREHENSION
        elif name and text in ("if", "else"):
            found[i] = TERNARY
        elif name and text in ("and", "or"):
            found[i] = LOGIC
        elif text == "." and previous.text in _CLOSING:
            found[i] = DOT
        elif not previous.ends_operand:
            continue
        elif token.kind == tokenize.STRING and previous.kind == tokenize.STRING:
            found[i] = STRING
        elif text in _COMPARISONS and not (text == "in" and seen_for) and \
                (text != "not" or (i + 1 < len(tokens) and tokens[i + 1].text == "in")):
            found[i] = COMPARATOR
        elif text in _MATH and token.kind == tokenize.OP:
            found[i] = _MATH[text]
    return found


def _delimiter_split(line: _Line, state: _Layout) -> list[_Line] | None:
    """One line per operand of the loosest delimiter; split at commas, the last element gets one too."""
    delimiters = _delimiters(line.tokens)
    if not delimiters:
        return None
    top = max(delimiters.values())
    if top == DOT and list(delimiters.values()).count(DOT) == 1:
        return None  # "splitting a single attribute from its owner looks wrong"
    cuts = [0, *sorted(i for i, p in delimiters.items() if p == top), len(line.tokens)]
    parts = [line.tokens[a:b] for a, b in zip(cuts, cuts[1:])]
    last = parts[-1][-1]
    if top == COMMA and last.text != ",":
        parts[-1] = [*parts[-1][:-1], replace(last, extra=0), _Token(",", "", tokenize.OP, last.extra)]
    return [_Line([replace(p[0], space=""), *p[1:]], line.indent, inside=True) for p in parts]


def _right_hand_split(line: _Line, state: _Layout) -> list[_Line] | None:
    """black's right_hand_split_with_omits: split inside the last brackets, or inside earlier ones where the
    first line does not fit otherwise and the trailers after them (`.to(x)`) fit; an assignment's value goes
    between parentheses of its own where it is a chain of operators (can_omit_invisible_parens), and where
    the other split leaves its first line too long and every line of this one fits (the second opinion)."""
    forced = _parenthesized(line, line.value, state) if line.value is not None else None
    if forced is not None and not _can_omit_parentheses(line, state):
        return forced
    first = chosen = None
    for closing in [*_trailer_splits(line, state)] or [_last_closing(line.tokens, set())]:
        opening = _pairs(line.tokens).get(closing)
        if opening is None or opening + 1 == closing or \
                (line.value is not None and opening < line.value):
            continue
        parts = _bracket_split(line, opening, closing, state)
        first = first or parts
        if _fits(parts[0], state):
            chosen = parts
            break
    chosen = chosen or first
    if chosen is None or forced is None:
        return chosen or forced
    head = _lay(chosen[0], state)[0]
    if not _fits(_Line(head[1], head[0]), state) and \
            all(_fits(_Line(t, i), state) for part in forced for i, t in _lay(part, state)):
        return forced
    return chosen


def _trailer_splits(line: _Line, state: _Layout):
    """The closing brackets to try a split at, right to left (black's generate_trailers_to_omit): the last
    one, then each one before it while what would follow it on its line (the trailers) fits; never past
    brackets with a magic trailing comma or a comment."""
    tokens = line.tokens
    pairs = _pairs(tokens)
    omitted: set[int] = set()
    if not _magic_comma(tokens):
        yield _last_closing(tokens, omitted)
    length, opening, closing, inner = line.indent, None, None, set()
    for i in range(len(tokens) - 1, -1, -1):
        token = tokens[i]
        length += len(token.space) + len(token.text) + token.extra
        if length > state.width or token.extra:
            return
        magic = i > 0 and tokens[i - 1].text == "," and i in pairs and _magic_comma(tokens[pairs[i]:i + 1])
        if opening is not None:
            if i == opening:
                opening = None
            elif token.text in _CLOSING:
                if magic:
                    return
                inner.add(i)
        elif token.text in _CLOSING:
            if i > 0 and tokens[i - 1].text in _OPENING:
                inner.add(i)  # empty brackets: nothing to split in
                continue
            if closing is not None:
                omitted |= {closing, *inner}
                inner.clear()
                yield _last_closing(tokens, omitted)
            if magic or i not in pairs:
                return
            opening, closing = pairs[i], i


def _left_hand_split(line: _Line, state: _Layout) -> list[_Line] | None:
    """A signature: split inside its parameters' parentheses; a lone parameter gets a trailing comma."""
    tokens = line.tokens
    opening = next((i for i, t in enumerate(tokens) if t.text == "("), None)
    closing = next((c for c, o in _pairs(tokens).items() if o == opening), None)
    if opening is None or closing is None or closing == opening + 1:
        return None
    parts = _bracket_split(line, opening, closing, state)
    body = parts[1].tokens
    if not any(t.text == "," for t, depth in zip(body, _depths(body)) if depth == 0):
        parts[1].tokens = [*body, _Token(",", "", tokenize.OP)]
    parts[1].explode = parts[1].explode or _magic_comma(tokens[opening:closing + 1])
    return parts


def _last_closing(tokens: list[_Token], omitted: set[int]) -> int | None:
    """The last closing bracket not omitted, past empty brackets (black's _first_right_hand_split)."""
    return next((i for i in range(len(tokens) - 1, 0, -1) if tokens[i].text in _CLOSING and i not in omitted
                 and tokens[i - 1].text not in _OPENING), None)


def _bracket_split(line: _Line, opening: int, closing: int, state: _Layout) -> list[_Line]:
    """Head up to the opening bracket, body one level in, tail from the closing bracket."""
    tokens = line.tokens
    head, body, tail = tokens[:opening + 1], tokens[opening + 1:closing], tokens[closing:]
    body = [replace(body[0], space=""), *body[1:]]
    # black's should_split_line: a literal collection (not call arguments, not a subscript) split at its
    # commas is one element a line, and so is a body that ends in a comma.
    commas = max(_delimiters(body[:-1] if body[-1].text == "," else body).values(), default=0) == COMMA
    literal = opening == 0 or not tokens[opening - 1].ends_operand
    return [_Line(head, line.indent),
            _Line(body, line.indent + state.step_columns, inside=True,
                  explode=commas and (literal or body[-1].text == ",")),
            _Line(tail, line.indent)]


def _parenthesized(line: _Line, at: int, state: _Layout) -> list[_Line]:
    """The assignment's value (from token `at`) between parentheses, on lines of their own."""
    tokens = line.tokens
    head = [*tokens[:at], _Token("(", tokens[at].space, tokenize.OP)]
    body = [replace(tokens[at], space=""), *tokens[at + 1:]]
    body[-1] = replace(body[-1], extra=0)
    # a tuple's parentheses are a literal's: one element a line (black's should_split_line)
    explode = max(_delimiters(body).values(), default=0) == COMMA
    return [_Line(head, line.indent), _Line(body, line.indent + state.step_columns, inside=True, explode=explode),
            _Line([_Token(")", "", tokenize.OP, tokens[-1].extra)], line.indent)]


def _can_omit_parentheses(line: _Line, state: _Layout) -> bool:
    """black's can_omit_invisible_parens: the value needs parentheses of its own if it is a chain of two or
    more operators of its loosest kind, or one operator and no brackets at its ends to split in."""
    body = line.tokens[line.value:]
    delimiters = _delimiters(body)
    if not delimiters:
        return True
    top = max(delimiters.values())
    if list(delimiters.values()).count(top) > 1:
        return False
    if top == DOT:
        return True
    pairs = _pairs(body)
    indent = line.indent + state.step_columns
    lengths = [len(t.space if i else "") + len(t.text) for i, t in enumerate(body)]
    first_closing = next((c for c, o in pairs.items() if o == 0), None)
    if body[0].text in _OPENING and body[1].text not in _CLOSING and first_closing is not None:
        # _can_omit_opening_paren: what follows the first brackets fits
        rest = indent
        for i in range(first_closing, len(body)):
            rest += lengths[i]
            if rest > state.width:
                break
            if body[i].text in _OPENING:  # brackets to split in further
                return True
        else:
            return True
    last = len(body) - 1
    opening = pairs.get(last)
    if opening is None or opening == last - 1:
        return False
    # a call or a literal at the end, not a subscript ("don't use indexing for omitting optional parentheses")
    if body[last].text in ")}" or not (opening and body[opening - 1].ends_operand):
        length, seen = indent, False  # _can_omit_closing_paren
        for i in range(len(body)):
            length += lengths[i]
            if i == opening:
                return seen or length <= state.width
            seen = seen or body[i].text in _OPENING
    return False


def _magic_comma(tokens: list[_Token]) -> bool:
    """A closing bracket right after a comma: black keeps such brackets one element a line, except a
    one-element tuple or subscript (`(a,)`, `x[a,]`)."""
    pairs, depths = _pairs(tokens), _depths(tokens)
    for closing, opening in pairs.items():
        if tokens[closing - 1].text != "," or closing - 1 == opening:
            continue
        commas = sum(1 for i in range(opening + 1, closing)
                     if tokens[i].text == "," and depths[i] == depths[closing] + 1)
        subscript = tokens[closing].text == "]" and opening > 0 and tokens[opening - 1].ends_operand
        if tokens[closing].text == "}" or commas > 1 or not (subscript or tokens[closing].text == ")"):
            return True
    return False
