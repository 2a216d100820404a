"""Compose's manifest says why each node was left out and gives the call that reaches it."""

from __future__ import annotations

import re

import pytest
from ctx_tree_mcp.cli.main import main
from ctx_tree_mcp.tools.compose import compose
from ctx_tree_mcp.tools.note import note


def _id(text: str) -> str:
    return re.search(r"node_id=(\w+)", text).group(1)


def _family(app, siblings: int = 12) -> tuple[str, str]:
    """A parent note with ``siblings`` children and one more child, the seed: from the seed,
    the parent is one hop away and the siblings (and the session) two."""
    parent = _id(note(app, "parent note about retries"))
    for i in range(siblings):
        note(app, f"child note {i} about retry backoff", parent_id=parent)
    return parent, _id(note(app, "the seed child", parent_id=parent))


def _head(text: str) -> str:
    return re.search(r"^-- ctx-tree: (.*)$", text, re.M).group(1)


def test_nodes_beyond_the_depth_are_counted_apart_and_next_widens_the_depth(app) -> None:
    """Everything within depth 1 fits, so the 13 nodes two hops away (12 siblings and the
    session) are 'beyond depth 1', not 'dropped', and next is the same call at depth 2."""
    _, seed = _family(app)
    text = compose(app, [seed], depth=1)
    assert _head(text).endswith("tokens; 2 included, 13 beyond depth 1"), text
    assert f'next: ctx_tree_compose(seed_ids=["{seed}"], depth=2)' in text.splitlines()
    assert "dropped:" not in text
    wider = compose(app, [seed], depth=2)
    assert _head(wider).endswith("tokens; 15 included"), wider
    assert "beyond depth" not in wider and "next:" not in wider


def test_the_tokens_line_reads_as_a_sentence(app) -> None:
    """The answer (headers and manifest) costs more than the candidates' content: the tokens
    line says so, not a share over 100%."""
    _, seed = _family(app, siblings=1)
    text = compose(app, [seed], depth=1)
    line = re.search(r"^tokens: (.*)$", text, re.M).group(1)
    assert re.fullmatch(r"[\d,]+ returned; candidate set: [\d,]+ in all", line), line


def test_budget_drops_keep_their_next_and_say_how_many_were_left_beyond_the_depth(app) -> None:
    """A small budget drops nodes for the budget: next gets the best of them, and the
    nodes beyond the depth are still counted apart."""
    _, seed = _family(app)
    text = compose(app, [seed], depth=1, budget_tokens=150)
    head = _head(text)
    assert re.search(r"tokens; \d+ included, \d+ dropped for budget, 13 beyond depth 1$", head), (
        text
    )
    assert "next: ctx_tree_get(node_id=" in text and "ctx_tree_compose(" not in text


def test_head_gives_the_budget_asked_and_the_content_packed(app) -> None:
    """The head states the caller's budget (not the room left after the manifest) and the
    tokens the content really costs; the whole answer stays within the budget."""
    from ctx_tree_compose import estimate_tokens

    _, seed = _family(app)
    for budget in (150, 2000):
        text = compose(app, [seed], depth=2, budget_tokens=budget)
        m = re.match(
            r"compose from 1 seed\(s\), depth 2, budget ([\d,]+): content ([\d,]+) tokens;",
            _head(text),
        )
        assert m, text
        assert int(m[1].replace(",", "")) == budget
        body = text[: text.index("-- ctx-tree:")]
        assert int(m[2].replace(",", "")) == estimate_tokens(body)
        assert estimate_tokens(text) <= budget


@pytest.fixture
def env(root, monkeypatch, tmp_path):
    monkeypatch.setenv("CTX_TREE_HOME", str(tmp_path / "h"))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(root)
    return root


def test_the_cli_next_is_a_command_line(env, capsys) -> None:
    main(["note", "parent note"])
    parent = _id(capsys.readouterr().out)
    main(["note", "--parent", parent, "a sibling"])
    main(["note", "--parent", parent, "the seed"])
    seed = _id(capsys.readouterr().out.splitlines()[-1])
    main(["compose", seed, "--depth", "1", "--budget-tokens", "3000"])
    out = capsys.readouterr().out
    assert f"next: ctx-tree compose {seed} --budget 3000 --depth 2" in out.splitlines()


def _chunks(app) -> list:
    from ctx_tree_mcp.tools.read import read
    from ctx_tree_schema import Filters, NodeKind

    for path in ("src/decoder.py", "src/argparse_copy.py"):
        read(app, path, budget_tokens=100)
    found = app.store.recent(limit=500, filters=Filters(kind=(NodeKind.FILE_CHUNK,)))
    return [n for n in found if not n.metadata.get("is_file_root")]


def test_header_tokens_bounds_the_real_headers(app) -> None:
    """Compose plans with HEADER_TOKENS per node before any header is rendered: it must bound
    what a real header costs (a 26-character id alone costs about 30 tokens), or compose packs
    more than fits and the answer loses what it planned to show."""
    from ctx_tree_compose import estimate_tokens
    from ctx_tree_mcp.tools.compose import HEADER_TOKENS, _header

    chunks = _chunks(app)
    costs = sorted(estimate_tokens(_header(n)) for n in chunks)
    assert len(costs) > 100 and costs[len(costs) // 2] > 40
    assert costs[-1] <= HEADER_TOKENS, costs[-5:]


@pytest.mark.parametrize("budget", [100, 150, 200, 300])
def test_a_small_seed_at_a_small_budget_comes_back_whole_or_as_next(app, budget) -> None:
    """A file-chunk seed of a few lines: the answer shows it whole (its header and every line)
    or names it in next, and ends with a whole manifest line (nothing cut off the end): its
    tokens line, or at the smallest budgets, where that optional line may not fit beside a long
    head (the count of drops depends on the store's paths and ids), the next line."""
    from ctx_tree_compose import estimate_tokens

    # the smallest chunk, chosen by content and place (ids are random: ties must not pick)
    seed = min(_chunks(app), key=lambda n: (len(n.content), n.metadata["relpath"], n.lines))
    text = compose(app, [seed.id], budget_tokens=budget)
    assert estimate_tokens(text) <= budget
    last = text.splitlines()[-1]
    assert re.search(r"^tokens: \d+ returned", last) or (
        budget < 150 and last.startswith("next: ctx_tree_get(")
    ), text
    start = seed.metadata["lines"][0]
    whole = "".join(f"{n}\t{line}\n" for n, line in enumerate(seed.content.splitlines(), start))
    shown = f"node_id={seed.id}\n{whole}" in text
    named = f'next: ctx_tree_get(node_id="{seed.id}")' in text.splitlines()
    assert shown or named, text
    if budget >= 300:
        assert shown, text


def test_nodes_of_a_file_denied_after_reading_are_neither_seeds_nor_next(app, root) -> None:
    """A file added to path.deny after it was read: a seed from it is refused as get refuses
    it (it used to come back as '1 included, 1 truncated' with nothing shown and a next that
    get refused), and no next names one of its nodes."""
    from ctx_tree_mcp.errors import ToolInputError
    from ctx_tree_mcp.tools.get import get
    from ctx_tree_mcp.tools.read import read

    read(app, "src/decoder.py")
    read(app, "src/argparse_copy.py", symbol="ArgumentParser.error")
    decoder = app.store.latest_by_source(f"file://{root / 'src' / 'decoder.py'}")
    (root / ".ctx-tree").mkdir()
    (root / ".ctx-tree" / "path.deny").write_text("src/decoder.py\n")
    app.__dict__.pop("policy", None)  # a new server reads path.deny at start
    with pytest.raises(ToolInputError, match="denylist"):
        compose(app, [decoder.id], budget_tokens=400)
    # a note hung under a chunk of the file: from the note, that chunk is the nearest node
    big = max(app.store.children(decoder.id), key=lambda n: len(n.content))
    seed = _id(note(app, "why scanstring is slow", parent_id=big.id))
    for budget in (150, 300, 600):
        text = compose(app, [seed], budget_tokens=budget, depth=1)
        assert big.id not in text.split("-- ctx-tree:")[1], text
        step = re.search(r'^next: ctx_tree_get\(node_id="(\w+)"', text, re.M)
        if step:
            get(app, step.group(1))  # never refused as denied
