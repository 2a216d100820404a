"""Vue and Svelte components (symbols of their scripts) and Jupyter notebooks (cells as
chunks, code cells' symbols, outputs capped)."""

from __future__ import annotations

import json

from ctx_tree_chunk import chunk_bytes, supported_languages

VUE = """<template>
  <div class="counter">
    <button @click="increment">{{ count }}</button>
  </div>
</template>

<script setup lang="ts">
import { ref } from "vue";

const count = ref(0);

function increment(): void {
  count.value += 1;
}

class Tally {
  total = 0;
  add(n: number): number {
    this.total += n;
    return this.total;
  }
}
</script>

<style scoped>
.counter { color: red; }
</style>
"""

SVELTE = """<script>
  export let name = "world";

  function greet(who) {
    return `Hello ${who}!`;
  }
</script>

<h1>{greet(name)}</h1>

<style>
  h1 { color: purple; }
</style>
"""


def _notebook(**meta) -> bytes:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Analysis\n", "Loading data."]},
        {
            "cell_type": "code",
            "metadata": {},
            "execution_count": 1,
            "source": ["import math\n", "\n", "def area(r):\n", "    return math.pi * r ** 2\n"],
            "outputs": [
                {
                    "output_type": "stream",
                    "name": "stdout",
                    "text": [f"row {i}\n" for i in range(500)],
                },
                {
                    "output_type": "display_data",
                    "metadata": {},
                    "data": {"image/png": "iVBORw0KGgo" * 2000, "text/plain": ["<Figure>"]},
                },
            ],
        },
        {
            "cell_type": "code",
            "metadata": {},
            "source": "class Shape:\n    def size(self):\n        return 1",
            "outputs": [],
        },
    ]
    return json.dumps(
        {"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}, indent=1
    ).encode()


def _symbols(cf):
    return {s.name: (s.kind, s.start_line, s.end_line) for s in cf.symbols}


def test_vue_script_symbols_and_blocks():
    cf = chunk_bytes(VUE.encode(), path="Counter.vue")
    assert cf.language == "vue" and "vue" in supported_languages()
    assert "".join(c.text for c in cf.chunks) == VUE
    syms = _symbols(cf)
    assert syms["increment"] == ("function", 12, 14)
    assert syms["Tally.add"][0] == "method"
    assert syms["template"] == ("section", 1, 5) and syms["style"] == ("section", 25, 27)
    by_symbol = {c.symbol: c for c in cf.chunks}
    assert by_symbol["template"].text.startswith("<template>")
    assert "function increment" in by_symbol["increment"].text
    assert "<button" not in by_symbol["increment"].text


def test_svelte_script_symbols_and_markup():
    cf = chunk_bytes(SVELTE.encode(), path="Hello.svelte")
    assert cf.language == "svelte"
    assert "".join(c.text for c in cf.chunks) == SVELTE
    assert _symbols(cf)["greet"] == ("function", 4, 6)
    kinds = {c.symbol: c.kind for c in cf.chunks}
    assert kinds["markup"] == "section" and kinds["style"] == "section"


def test_notebook_cells_are_chunks_with_code_symbols_and_capped_outputs():
    data = _notebook(kernelspec={"name": "python3", "language": "python"})
    cf = chunk_bytes(data, path="analysis.ipynb")
    assert cf.language == "ipynb" and cf.rendered is not None
    assert "".join(c.text for c in cf.chunks) == cf.rendered
    assert cf.total_lines == cf.rendered.count("\n")
    syms = _symbols(cf)
    assert syms["area"][0] == "function" and syms["Shape.size"][0] == "method"
    assert {"cell 1", "cell 2", "cell 2 output", "cell 3"} <= set(syms)
    assert "# Analysis" in next(c.text for c in cf.chunks if c.symbol == "cell 1")
    assert "row 19\n" in cf.rendered and "row 20\n" not in cf.rendered  # output capped
    assert "iVBORw0KGgo" not in cf.rendered and "[image/png output left out]" in cf.rendered
    assert len(cf.rendered) < len(data) // 10


def test_notebook_in_another_language_still_gives_cells():
    cf = chunk_bytes(_notebook(kernelspec={"language": "julia"}), path="a.ipynb")
    assert {"cell 1", "cell 2", "cell 3"} <= set(_symbols(cf))
    assert "area" not in _symbols(cf)  # no grammar for it: cells only


def test_not_a_notebook_is_chunked_as_json():
    cf = chunk_bytes(b'{"a": 1, "b": [1, 2]}\n', path="x.ipynb")
    assert cf.language == "json" and cf.rendered is None
