"""Which lines of a command's output an answer shows when all of them do not fit.

In order, while room is left: test-runner and build summaries (pytest, unittest, go test,
cargo, jest, vitest, mocha, npm, make, tsc, mypy, ruff; the last one, the run's result, first, then the
first line naming a failing test), the
lines of each pytest failure's test code nearest its ``>`` line, the tail (to a section rule),
the exception lines, the location and
statement of each pytest traceback frame (``pkg/mod.py:41: in f``), the rest of the failing
tests' code, the frames in installed code (``site-packages``, ``node_modules``: their ``>``
lines, locations and source come after the project's own; docs/tools.md), error and failure
lines with two lines of context either side (first ones first), the lines
that stand out from the repeated bulk (:func:`standouts`: a diagnostic print, one ``Created
<file>`` among hundreds of progress lines, a warning), more of the tail, then the head. The
tail and the head stop at a line that only reports one success (:data:`NOISE`: ``… PASSED``,
``--- PASS``, ``… ok``): a run of 400 passing tests costs nothing. Every cost is measured with
the estimator that measures the answer (:func:`~ctx_tree_compose.estimate_tokens`). The patterns are
data (:data:`SUMMARY`, :data:`PROBLEM`; ``\\s`` is avoided there because the patterns run over
the whole output at once; :data:`RESULT_AT_END` for what only a run's last lines can be):
adding a runner is adding a line. Pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ctx_tree_mcp.answers.budget import MAX_CHARS_PER_TOKEN, estimate_tokens

__all__ = ["MAX_LINE_CHARS", "Scan", "Selection", "render_lines", "scan", "select_lines"]

#: What pytest counts in its result line (``2 failed, 150 passed, 3 warnings in 1.2s``).
_PYTEST_COUNTS = "failed|passed|errors?|skipped|deselected|xfailed|xpassed|warnings?|rerun"
#: ``pytest -q``'s result line: the counts without the ``===`` rules around them.
_PYTEST_QUIET_RESULT = rf"^(?:\d++ (?:{_PYTEST_COUNTS}), )*+\d++ (?:{_PYTEST_COUNTS}) in \d+(\.\d+)?s( \(\d+:\d\d:\d\d\))?$"
#: Summary lines of test runners and builds, by tool.
SUMMARY: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (tool, re.compile(pattern))
    for tool, pattern in (
        ("pytest", r"^=+ .*\b(passed|failed|errors?|skipped|xfailed|xpassed|no tests ran)\b.*=+$"),
        ("pytest", r"^(FAILED|ERROR) \S"),
        ("pytest", r"^_{3,} \S.* _{3,}$"),
        ("unittest", r"^(Ran \d+ tests? in |OK$|OK \(|FAILED \((failures|errors)=)"),
        ("unittest", r"^(FAIL|ERROR): \w"),
        ("go", r"^(--- FAIL: |FAIL[ \t]|ok[ \t]+\S+[ \t]|PASS$|FAIL$|panic: )"),
        ("cargo", r"^(test result: |failures:$|---- \S+ stdout ----|error(\[E\d+\])?: )"),
        ("cargo", r"^thread '.*' panicked at"),
        ("jest", r"^[ \t]*(Tests|Test Suites|Test Files|Snapshots):?[ \t]+\d"),
        ("jest", r"^[ \t]*(●|FAIL|✕|×|❯) \S"),
        ("mocha", r"^[ \t]*\d+ (passing|failing|pending)\b"),
        ("npm", r"^npm (ERR!|error) "),
        ("make", r"^g?make(\[\d+\])?: \*\*\* "),
        ("tsc", r"^\S.*\(\d+,\d+\): error TS\d+: "),
        # the count a checker ends with: tsc, mypy and ruff (``Found 3 errors in 2 files.``)
        ("check", r"^(Found \d+ errors?\b|Success: no issues found|All checks passed!$)"),
        ("build", r"^(BUILD (SUCCESSFUL|FAILED)|Build (succeeded|FAILED))"),
    )
)
#: Result lines that only a run's end holds: ``pytest -q``'s bare counts (a line of numbers
#: and words elsewhere is no result). Tried on the last :data:`END_LINES` lines alone, so the
#: scan of a long output (``seq 1 200000``) pays nothing for them.
RESULT_AT_END: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("pytest", re.compile(_PYTEST_QUIET_RESULT)),
    ("pytest", re.compile(r"^no tests ran in \d+(\.\d+)?s$")),
)
END_LINES = 10
#: Words of a line that reports a problem (lower case).
PROBLEM_WORDS = (
    "error", "fail", "fatal", "panic", "exception", "traceback", "assert", "segmentation fault",
    "core dumped", "denied", "not found", "no such file", "cannot", "can't", "unable to",
    "undefined", "killed",
)  # fmt: skip
#: Lines that report a problem: any of :data:`PROBLEM_WORDS` in the lower-cased output (a
#: plain alternation of literals, which the regex engine scans for fast), and pytest's
#: assertion details (``E   …`` at a line start). Shown with :data:`CONTEXT` lines either side.
PROBLEM = re.compile("|".join(re.escape(w) for w in PROBLEM_WORDS))
PROBLEM_BYTES = re.compile(PROBLEM.pattern.encode())
_PYTEST_DETAIL = re.compile(r"\nE {2,}\S")
#: All of :data:`SUMMARY` (each anchored at a line start) as one pattern: one pass.
_ANY_SUMMARY = re.compile(
    "(?m)^(?:" + "|".join(f"(?:{p.pattern.removeprefix('^')})" for _, p in SUMMARY) + ")"
)
#: Lines that only report one success (a passing test, a finished step): the tail and the head
#: stop at them, so a long run of them costs nothing (pytest -v, go test -v, cargo test,
#: unittest -v, jest, mocha).
NOISE = re.compile(
    r"(?m)^(?:[^\n]*\bPASSED\b[ \t]*(?:\[ *\d+%\])?$|[ \t]*--- PASS: |=== (?:RUN|PAUSE|CONT) "
    r"|[^\n]* \.\.\. ok$|[ \t]*(?:✓|✔|√) )"
)
CONTEXT = 2
#: Longest line shown in an answer; the stored output keeps whole lines.
MAX_LINE_CHARS = 400
#: A line stands out when its shape (:func:`_shapes`) occurs at most this many times, in an
#: output of at least :data:`STANDOUT_MIN_LINES` lines where most lines share their shape
#: with others.
STANDOUT_MAX_REPEATS = 3
STANDOUT_MIN_LINES = 20
#: Words that make a standing-out line come first (lower case): prints and reports of what a
#: command made or decided.
STANDOUT_WORDS = (
    "warn", "debug", "created", "wrote", "written", "saved", "generated", "output", "result",
    "deprecat", "skipp", "ignor", "expected", "got", "=",
)  # fmt: skip
#: A problem line that names what went wrong: pytest's ``E   …`` details, ``XError: …`` and
#: ``XException: …`` lines, ``FAILED``/``FAIL:`` lines; shown before the others' context.
_EXCEPTION = re.compile(r"^(E {2,}\S|\s*\w*(Error|Exception|Exit)\b.*:|FAIL(ED)?\b|error\b)")
_SHAPE_DIGITS = re.compile(r"[0-9a-f]*[0-9][0-9a-f]*")
#: pytest's mark of the line a traceback frame stopped at (``>       assert x == 1``); the
#: frame's source lines above it are indented four spaces.
_FAILING_LINE = re.compile(r"(?m)^>   ")
#: pytest's location line of a traceback frame (``pkg/mod.py:41: in <module>``, the test's
#: own ``tests/test_x.py:12: ``); the frame's statement follows it, indented.
_FRAME_LINE = re.compile(r"(?m)^[^\s>|][^\s:]*\.\w+:\d+: (?:in \S.*)?$")
#: A traceback location line of any frame: ``pkg/mod.py:41: in f``, the raising frame's
#: ``/usr/lib/python3.11/site-packages/numpy/__init__.py:319: AttributeError``, the path
#: captured.
_LOCATION = re.compile(r"^(<[^>\n]*>|[^\s>|<][^\s:]*\.\w+):\d+: ")
#: A path of installed code, not the project's: ``site-packages``, ``dist-packages``,
#: ``node_modules``, the standard library (``lib/python3.11/``), ``<frozen …>``.
LIBRARY_PATH = re.compile(r"(?:^|/)(?:site-packages|dist-packages|node_modules)/|/lib/python\d|^<")
#: Lines after a ``>`` line searched for its frame's location, at most.
_LOCATION_AFTER = 200
#: A line naming an exception: ``XError: …``, ``XException: …`` (after pytest's ``E``).
_NAMED_EXCEPTION = re.compile(r"^(E {2,})?\s*[\w.]*(Error|Exception)\b:")
#: A summary line naming one failing test (pytest's ``FAILED t.py::test_x - assert 6 == 7``,
#: unittest's ``FAIL: test_x``, go's ``--- FAIL: TestX``, jest's ``● suite › test``): the
#: first one comes right after the run's result, in all the room.
_NAMES_FAILURE = re.compile(r"^((FAILED|ERROR) \S|(FAIL|ERROR): \w|[ \t]*--- FAIL: |[ \t]*● \S)")
#: A section rule of a test runner's report (pytest's ``==== short test summary info ====``,
#: ``---- Captured stdout call ----``): the tail stops after one, so it shows the last section.
_SECTION_RULE = re.compile(r"^([=_-])\1{2,} \S.* \1{3,}$")


@dataclass(frozen=True, slots=True)
class Selection:
    """Shown line indexes (0-based, sorted) and what the selection found."""

    shown: list[int]
    summaries: int
    problems: int


def _display(line: str) -> str:
    if len(line) <= MAX_LINE_CHARS:
        return line
    return f"{line[:MAX_LINE_CHARS]}…[+{len(line) - MAX_LINE_CHARS} chars]"


def line_cost(index: int, line: str) -> int:
    """Tokens of one numbered answer line (``<n>\\t<text>\\n``)."""
    return estimate_tokens(f"{index + 1}\t{_display(line)}\n")


def _problem_starts(text: str) -> list[int]:
    """Offsets (ascending) inside each line of ``text`` that reports a problem."""
    hits = [m.start() for m in PROBLEM.finditer(text.lower())]
    if "\nE  " in text or text.startswith("E  "):
        hits = sorted(hits + [m.start() for m in _PYTEST_DETAIL.finditer("\n" + text)])
    return hits


def problem_lines(text: str, limit: int) -> tuple[list[str], int]:
    """The first ``limit`` lines of ``text`` that report a problem, and how many there are."""
    found: list[str] = []
    count = 0
    end = -1
    for at in _problem_starts(text):
        if at <= end:
            continue  # same line
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        count += 1
        if len(found) < limit:
            found.append(text[start:end])
    return found, count


def _line_indexes(text: str, offsets: list[int]) -> list[int]:
    """Indexes of the lines of ``text`` holding ``offsets`` (ascending), once each; newlines
    are counted between consecutive offsets (C speed, one pass)."""
    found: dict[int, None] = {}
    line, at = 0, 0
    for offset in offsets:
        line += text.count("\n", at, offset)
        at = offset
        found[line] = None
    return list(found)


def _shapes(lines: list[str]) -> list[str]:
    """What each line shares with the lines of its kind: its first two words, lower-cased, with
    numbers and hex ids made ``0`` (``#0 user``, ``line #0``, ``✅ created``). One regex pass
    over the whole output, not one per line."""
    text = _SHAPE_DIGITS.sub("0", "\n".join(lines).lower())
    shapes = [" ".join(line.split(None, 2)[:2]) for line in text.split("\n")]
    return shapes if len(shapes) == len(lines) else [" ".join(ln.split()[:2]) for ln in lines]


def standouts(lines: list[str], skip: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """Indexes of the lines that stand out from the repeated bulk, best first.

    A line stands out when its shape (:func:`_shapes`) occurs at most
    :data:`STANDOUT_MAX_REPEATS` times while the output repeats itself (at least
    :data:`STANDOUT_MIN_LINES` lines, at most half of them of a rare shape): a diagnostic print
    among pylint messages, one ``Created <file>`` among hundreds of progress lines. Those
    holding one of :data:`STANDOUT_WORDS` come first, then the rarer, then the earlier.
    Blank lines and ``skip`` are left out."""
    n = len(lines)
    if n < STANDOUT_MIN_LINES:
        return []
    shapes = _shapes(lines)
    counts: dict[str, int] = {}
    for shape in shapes:
        counts[shape] = counts.get(shape, 0) + 1
    rare = [i for i, shape in enumerate(shapes) if shape and counts[shape] <= STANDOUT_MAX_REPEATS]
    if len(rare) > n // 2:
        return []  # nothing is bulk: every line is as rare as the others

    def rank(i: int) -> tuple[int, int, int]:
        low = lines[i].lower()
        return (0 if any(w in low for w in STANDOUT_WORDS) else 1, counts[shapes[i]], i)

    return sorted((i for i in rare if i not in skip), key=rank)


@dataclass(frozen=True, slots=True)
class Scan:
    """One pass over the output: its lines, what they cost shown all together, and the
    indexes (0-based) of summary, problem and standing-out lines."""

    lines: list[str]
    tokens: int  #: of every line numbered, as shown when nothing is left out
    #: the last one (the run's result) first, then the first naming a failing test, then in order
    summaries: list[int]
    problems: list[int]
    noise: frozenset[int]
    standouts: list[int]  #: best first (:func:`standouts`)
    shapes: list[str]  #: each line's shape (:func:`_shapes`)
    bulk: frozenset[int]  #: lines of a shape repeated more than STANDOUT_MAX_REPEATS times
    #: pytest's ``>`` lines (the line each traceback frame stopped at), in order
    failing: list[int]
    #: pytest's frame location lines (``pkg/mod.py:41: in f``), in order
    frames: list[int] = field(default_factory=list)
    #: the ``>`` lines and frame location lines of frames in installed code
    #: (:data:`LIBRARY_PATH`): shown after the project's own frames
    library: frozenset[int] = field(default_factory=frozenset)


#: Outputs longer than this many characters are not estimated whole: no budget holds them.
_WHOLE_ESTIMATE_CHARS = MAX_CHARS_PER_TOKEN * 200_000


def scan(lines: list[str]) -> Scan:
    """Find the summary, problem and standing-out lines of ``lines`` (one pass each)."""
    text = "\n".join(lines)
    n = len(lines)
    long_lines = n and max(map(len, lines)) > MAX_LINE_CHARS
    if long_lines or len(text) > _WHOLE_ESTIMATE_CHARS:
        tokens = 1 << 30
    else:  # measured as it would be shown, with the estimator that measures the answer
        tokens = estimate_tokens("".join(f"{i}\t{line}\n" for i, line in enumerate(lines, 1)))
    summaries = _line_indexes(text, [m.start() for m in _ANY_SUMMARY.finditer(text)])
    ends = [i for i in range(max(0, n - END_LINES), n) if _result_at_end(lines[i])]
    if ends:
        summaries = sorted({*summaries, *ends})
    if summaries:
        summaries = [summaries[-1], *summaries[:-1]]
        named = next((i for i in summaries[1:] if _NAMES_FAILURE.match(lines[i])), None)
        if named is not None:
            summaries.remove(named)
            summaries.insert(1, named)
    problems = _line_indexes(text, _problem_starts(text))
    noise = frozenset(_line_indexes(text, [m.start() for m in NOISE.finditer(text)]))
    marked = set(summaries) | set(problems) | noise
    shapes = _shapes(lines)
    failing = _line_indexes(text, [m.start() for m in _FAILING_LINE.finditer(text)])
    frames = _line_indexes(text, [m.start() for m in _FRAME_LINE.finditer(text)])
    return Scan(
        lines,
        tokens,
        summaries,
        problems,
        noise,
        standouts(lines, marked),
        shapes,
        bulk_lines(shapes),
        failing,
        frames,
        library_frames(lines, failing, frames),
    )


def library_frames(lines: list[str], failing: list[int], frames: list[int]) -> frozenset[int]:
    """The ``failing`` (``>``) lines and the ``frames`` location lines whose frame is in
    installed code (:data:`LIBRARY_PATH`). A ``>`` line's frame is named by the first location
    line after it (pytest prints a long frame's source, then its ``path:line:``), looked for
    up to the next ``>`` line or failure header, at most :data:`_LOCATION_AFTER` lines on."""
    out = {i for i in frames if LIBRARY_PATH.search(lines[i])}
    ends = set(failing)
    for at in failing:
        for j in range(at + 1, min(len(lines), at + _LOCATION_AFTER)):
            line = lines[j]
            if j in ends or _SECTION_RULE.match(line):
                break
            found = _LOCATION.match(line)
            if found:
                if LIBRARY_PATH.search(found.group(1)):
                    out.add(at)
                break
    return frozenset(out)


def _result_at_end(line: str) -> bool:
    """True for a line :data:`RESULT_AT_END` names a result."""
    return any(pattern.match(line) for _, pattern in RESULT_AT_END)


def bulk_lines(shapes: list[str]) -> frozenset[int]:
    """Indexes of the lines whose shape (:func:`_shapes`) more than
    :data:`STANDOUT_MAX_REPEATS` lines share, in an output of at least
    :data:`STANDOUT_MIN_LINES` lines: the repeated bulk (progress, one message per file,
    numbers). Blank lines are not bulk."""
    if len(shapes) < STANDOUT_MIN_LINES:
        return frozenset()
    counts: dict[str, int] = {}
    for shape in shapes:
        counts[shape] = counts.get(shape, 0) + 1
    return frozenset(
        i for i, shape in enumerate(shapes) if shape and counts[shape] > STANDOUT_MAX_REPEATS
    )


#: A cut output shows at most this many lines of its head and of its tail (the budget is a
#: cap, not a target: the rest is one ``ctx_tree_get`` away) ...
HEAD_LINES = 8
TAIL_LINES = 30
#: ... and a head or tail stops after this many lines in a row of the repeated bulk
#: (:func:`bulk_lines`): ``seq 1 3000`` shows three numbers either end, not 230.
BULK_RUN = 3
#: Problem lines shown with their context, at most; a shape of problem line (one pylint
#: message code, one warning) is shown at most :data:`BULK_RUN` times.
PROBLEM_WINDOWS = 12
#: Summary lines shown besides the run's result, at most (the first ones: ``FAILED …``
#: lines name the failing tests; 157 ``ERROR …`` lines are one ``ctx_tree_get`` away).
SUMMARY_LINES = 20
#: Distinct exception and assertion lines (numbers aside) shown, at most, before any context.
EXCEPTIONS = 12
#: pytest failures whose test code is shown (the first ones), and how much of it: the
#: :data:`SOURCE_NEAR` lines just above each ``>`` line within half the room, before the tail;
#: the rest up to the frame's top (its ``def`` and decorators) after the exceptions, at most
#: :data:`SOURCE_LINES` lines each.
SOURCE_FRAMES = 4
SOURCE_NEAR = 8
SOURCE_LINES = 40
#: pytest traceback frames whose location line and statement are shown (the first ones),
#: after the exceptions and before the rest of the failing tests' code.
FRAMES = 12


def frame_sources(found: Scan) -> list[tuple[int, list[int]]]:
    """The first :data:`SOURCE_FRAMES` pytest ``>`` lines, the project's before installed
    code's (:attr:`Scan.library`), each with the indexes of its frame's source lines above it
    (indented four spaces, or blank), nearest first, at most :data:`SOURCE_LINES`."""
    lines = found.lines
    out: list[tuple[int, list[int]]] = []
    seen: set[tuple[str, ...]] = set()
    failing = set(found.failing)
    ordered = sorted(found.failing, key=lambda at: at in found.library)
    for at in ordered[:SOURCE_FRAMES]:
        above: list[int] = []
        i = at - 1
        while i >= 0 and len(above) < SOURCE_LINES and i not in failing:
            line = lines[i]
            if line.strip() and not line.startswith("    "):
                break
            above.append(i)
            i -= 1
        while above and not lines[above[-1]].strip():
            above.pop()  # a blank line opens the frame: not its code
        code = tuple(lines[i] for i in above)
        if code in seen:  # one parametrized test failing twice: its code once
            above = []
        seen.add(code)
        out.append((at, above))
    return out


def select_lines(found: Scan, room: int) -> Selection:
    """Choose lines within ``room`` tokens (gap markers between shown runs included).

    ``room`` is a cap, not a target: a cut output shows its salient lines (the run's result
    and the other summaries, the exceptions and failures with their context, the lines that
    stand out) and a bounded head and tail (:data:`HEAD_LINES`, :data:`TAIL_LINES`, each
    stopping at a run of bulk), not the bulk padded up to the budget."""
    lines = found.lines
    n = len(lines)
    if found.tokens <= room:
        return Selection(list(range(n)), len(found.summaries), len(found.problems))
    chosen: set[int] = set()
    used = 0

    def take(i: int, limit: int) -> bool:
        nonlocal used
        if i in chosen:
            return True
        # A line next to no shown line may open one more "omitted" marker.
        isolated = i - 1 not in chosen and i + 1 not in chosen
        cost = line_cost(i, lines[i]) + (_GAP if isolated else 0)
        if used + cost > limit:
            return False
        chosen.add(i)
        used += cost
        return True

    def quiet(i: int) -> bool:
        """A success line not yet shown: the tail and head stop there (once a few are shown)."""
        return i in found.noise and i not in chosen and len(chosen) >= 3

    def edge(order: range, most: int, limit: int, *, tail: bool = False) -> None:
        """Up to ``most`` lines of ``order`` (the tail backwards, or the head), stopping at a
        success line or after :data:`BULK_RUN` bulk lines in a row; the ``tail`` stops after
        a section rule above its last line (:data:`_SECTION_RULE`)."""
        run = 0
        for count, i in enumerate(order):
            if count >= most or quiet(i) or not take(i, limit):
                return
            run = run + 1 if i in found.bulk else 0
            if run >= BULK_RUN:
                return
            if tail and count and _SECTION_RULE.match(lines[i]):
                return

    for k, i in enumerate(found.summaries[: SUMMARY_LINES + 1]):
        # the result and the first line naming a failing test in all the room, the rest in 2/5
        first = k == 0 or (k == 1 and _NAMES_FAILURE.match(lines[i]) is not None)
        if not take(i, room if first else room * 2 // 5) and k > 1:
            break
    # each pytest failure's code up to its ``>`` line: what the test did before it failed;
    # the lines nearest it now, the rest after the exceptions
    # (the project's frames first: a frame in installed code, its ``>`` line, source and
    # location, comes after the project's whole chain and the rest of the tests' code)
    sources = frame_sources(found)
    source_limit = min(room, used + room // 2)

    def take_sources(near: bool, library: bool = False) -> None:
        for at, above in sources:
            if (at in found.library) != library:
                continue
            for i in above[:SOURCE_NEAR] if near else above[SOURCE_NEAR:]:
                if not take(i, source_limit):
                    break

    for at, _ in sources:
        if at not in found.library:
            take(at, source_limit)  # the ``>`` line
    take_sources(True)
    edge(range(n - 1, -1, -1), TAIL_LINES, min(room, used + room // 4), tail=True)
    # a fifth of the room is left for the standing-out lines, when there are any
    problem_limit = room - room // 5 if found.standouts else room
    shapes: dict[str, int] = {}
    problems: list[int] = []
    for i in found.problems:  # each shape of problem a few times: the rest is bulk
        shape = found.shapes[i] if i in found.bulk else str(i)
        shapes[shape] = shapes.get(shape, 0) + 1
        if shapes[shape] <= BULK_RUN:
            problems.append(i)
        if len(problems) >= PROBLEM_WINDOWS:
            break
    seen: set[str] = set()
    exceptions: list[int] = []
    for i in found.problems:  # each distinct exception or assertion once, the first first
        if _EXCEPTION.search(lines[i]):
            key = _SHAPE_DIGITS.sub("0", lines[i].strip())
            if key not in seen:
                seen.add(key)
                exceptions.append(i)
    # a line naming an exception (``E   KeyError: 'x'``) before pytest's other ``E`` details
    exceptions.sort(key=lambda i: 0 if _NAMED_EXCEPTION.search(lines[i]) else 1)
    for i in exceptions[:EXCEPTIONS]:
        take(i, problem_limit)  # each alone, before the other problems' context
    source_limit = problem_limit

    def take_frames(library: bool) -> None:
        for i in [i for i in found.frames if (i in found.library) == library][:FRAMES]:
            statement = i + 1 < n and lines[i + 1].startswith("    ")
            if not (take(i, problem_limit) and (not statement or take(i + 1, problem_limit))):
                break

    # where the error went through: each frame's location and its statement (two lines a
    # frame), the chain from the test to the line that raised, in the project's code; then
    # the rest of the tests' code; then the frames in installed code
    take_frames(False)
    take_sources(False)
    for at, _ in sources:
        if at in found.library:
            take(at, problem_limit)
    take_frames(True)
    take_sources(True, library=True)
    take_sources(False, library=True)
    for i in problems:  # a bulk line's neighbours are more bulk: it is shown alone
        span = 0 if i in found.bulk else CONTEXT
        window = range(max(0, i - span), min(n, i + span + 1))
        if not all(take(j, problem_limit) for j in window):
            break
    standout_limit = used + room // 5
    for i in found.standouts:  # each alone; a line that does not fit leaves room for others
        take(i, min(room, standout_limit))
    edge(range(n), HEAD_LINES, room)
    return Selection(sorted(chosen), len(found.summaries), len(found.problems))


_GAP = 12  # tokens of one "…\t(lines a-b omitted)" marker (10-13 by the numbers)


def render_lines(
    lines: list[str], shown: list[int], *, terse: bool = False
) -> tuple[str, list[tuple[int, int]]]:
    """Numbered lines (``<n>\\t<text>``, 1-based) with a marker for each omitted run
    (``terse``: a bare ``…`` line, the line numbers either side telling what is left out).

    Returns the text and the omitted runs as 1-based inclusive ``(first, last)`` pairs.
    """
    out: list[str] = []
    gaps: list[tuple[int, int]] = []
    prev = -1
    for i in shown:
        if i > prev + 1:
            gaps.append((prev + 2, i))
            out.append("…\n" if terse else f"…\t(lines {prev + 2}-{i} omitted)\n")
        out.append(f"{i + 1}\t{_display(lines[i])}\n")
        prev = i
    if prev + 1 < len(lines):
        gaps.append((prev + 2, len(lines)))
        out.append("…\n" if terse else f"…\t(lines {prev + 2}-{len(lines)} omitted)\n")
    return "".join(out), gaps
