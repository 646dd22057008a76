"""Map (docs/specs/grid_puzzles.md §5 "Map", §7, §8)."""
from __future__ import annotations

import numpy as np
import pytest

from kumo_gym.core.errors import ConfigError
from kumo_gym.envs.grid.claims import solution_claims
from kumo_gym.envs.grid.map import MapTask, codec, kernel, reduce_colours
from kumo_gym.envs.grid.map import geometry as map_geometry
from kumo_gym.envs.grid.map.geometry import (
    colouring_model,
    grow_map,
    grown,
    neighbour_lists,
    random_colouring,
)
from kumo_gym.envs.grid.tatham import decode_auxinfo

from .spec import check_labels, check_rejected, check_tatham_example, play_golden, violated_rules

T = MapTask()
SPEC_ID = "4x3n5:adbaaacbba,3a201"  # from sgt-map --generate 1 '4x3n5de#kumo'
SPEC_SOLUTION = [["B", "Y", "Y", "Y"], ["G", "G", "R", "R"], ["G", "G", "Y", "R"]]
OTHER_ID = "5x4n6:cabdecccaabca,3213a0"  # from sgt-map --generate 1 '5x4n6dn#kumo' (region 3 inside region 1)
OTHER_SOLUTION = [["B", "G", "G", "G", "Y"], ["B", "G", "B", "G", "Y"], ["Y", "Y", "R", "R", "Y"],
                  ["Y", "Y", "R", "R", "R"]]
OTHER_AUX = "0aa93715185bad487daae4d37490132a2262a5eccbcf47ff8b"


def edge_letters(walls: list[bool]) -> str:
    """The edge-list letters of a wall sequence (the run-length code of the module docstring)."""
    out, run, wall = [], 1, False
    for v in walls:
        if v != wall:
            out.append(chr(ord("a") - 1 + run))
            run, wall = 1, v
        else:
            if run == 25:
                out.append("z")
                run = 0
            run += 1
    return "".join(out) + chr(ord("a") - 1 + run)


def test_spec_example():
    inst = check_tatham_example(T, SPEC_ID, SPEC_SOLUTION)
    st = inst.data["state"]
    assert st["regions"] == [[0, 1, 1, 1], [2, 2, 3, 3], [2, 2, 4, 3]]
    assert st["neighbours"] == [[1, 2], [0, 2, 3], [0, 1, 3, 4], [1, 2, 4], [2, 3]]
    assert st["given"] == ["B", ".", "G", "R", "Y"]
    other = check_tatham_example(T, OTHER_ID, OTHER_SOLUTION)
    assert other.data["state"]["neighbours"][3] == [1, 5]  # the enclave touches its host and the region below
    aux = decode_auxinfo(OTHER_AUX)
    assert aux == "S;3:0;2:1;1:2;3:3;1:4;0:5"
    assert codec.aux_solution(other.data["state"], aux) == OTHER_SOLUTION


def test_params_grammar():
    assert [T.tatham_preset(d) for d in T.difficulties] == ["20x15n30de", "20x15n30dn", "20x15n30dh", "30x25n75dh"]
    assert T.decode_params("30x25n75dn") == {"W": 30, "H": 25, "n": 75, "tatham_difficulty": "n"}
    assert T.encode_params(T.resolve_params(**T.decode_params("20x15n30du"))) == "20x15n30du"
    assert T.encode_params(T.resolve_params(**T.decode_params("20x15n30du")), full=False) == "20x15n30"
    check_rejected(T.decode_params, ("20x15n30dx", "20x15n4", "3x3n10", "1x5n5", "20x15n30q"))
    with pytest.raises(ConfigError, match="do not fit"):
        T.resolve_params(W=3, H=2, n=7)


def test_description_errors():
    for bad in ("4x3n5:adbaaacbba3a201",     # no comma
                "4x3n5:adbaaacbb,3a201",     # too few edges
                "4x3n5:adbaaacbbaa,3a201",   # too many edges
                "4x3n5:adbaaAcbba,3a201",    # not a letter
                "4x3n6:adbaaacbba,3a201a",   # five regions, n says six
                "4x3n5:adbaaacbba,3a20",     # too few colours
                "4x3n5:adbaaacbba,3a2011",   # too many colours
                "4x3n5:adbaaacbba,3a204"):   # not a colour digit
        with pytest.raises(ConfigError):
            T.load(bad)
    # a wall between two cells of one region: a 2x2 block that is also joined round the wall
    regions = [[0, 0, 1], [0, 0, 2], [3, 4, 5]]
    walls = [regions[a[0]][a[1]] != regions[b[0]][b[1]] for a, b in codec.edge_cells(3, 3)]
    assert codec.decode({"W": 3, "H": 3, "n": 6}, edge_letters(walls) + ",f")["regions"] == regions
    walls[0] = True  # the edge under cell (0, 0)
    with pytest.raises(ConfigError, match="inside one region"):
        codec.decode({"W": 3, "H": 3, "n": 6}, edge_letters(walls) + ",f")
    with pytest.raises(ConfigError):
        codec.aux_solution(T.load(SPEC_ID).data["state"], "S;0:0")


def test_long_runs_round_trip():
    """Runs longer than 25 edges ('z' adds 25 without switching) and 26 regions ('z' in the colours)."""
    regions = [[0] * 30 for _ in range(2)] + [list(range(1, 31))]
    desc = codec.encode({"regions": regions, "given": ["."] * 31})
    assert "z" in desc.split(",")[0] and desc.split(",")[1] == "ze"
    back = codec.decode({"W": 30, "H": 3, "n": 31}, desc)
    assert back["regions"] == regions and codec.encode(back) == desc


def test_each_rule_alone():
    other = T.load(OTHER_ID)
    # R1 alone: one cell of the uncoloured region 4 (all yellow) turned green; no border is touched
    bad = [list(r) for r in OTHER_SOLUTION]
    bad[3][0] = "G"
    assert violated_rules(T, other, bad) == ["map.R1"]
    # R2 alone: region 4 all blue, the colour of its neighbour region 0
    bad = [list(r) for r in OTHER_SOLUTION]
    for r, c in ((2, 0), (2, 1), (3, 0), (3, 1)):
        bad[r][c] = "B"
    assert violated_rules(T, other, bad) == ["map.R2"]
    assert T.verify(other, bad).details["first_error_cell"] == [1, 0]
    # R3 alone: the given blue region 0 of the spec example red, a colour none of its neighbours has
    inst = T.load(SPEC_ID)
    bad = [list(r) for r in SPEC_SOLUTION]
    bad[0][0] = "R"
    assert violated_rules(T, inst, bad) == ["map.R3"]
    assert T.verify(inst, bad).details["first_error_cell"] == [0, 0]


def test_grown_maps_are_connected_and_numbered_in_order():
    rng = np.random.default_rng(5)
    for H, W, n in ((15, 20, 30), (4, 5, 20), (3, 3, 9)):
        regions = grow_map(rng, H, W, n)
        assert sorted(set(regions.ravel().tolist())) == list(range(n))
        flat = regions.ravel().tolist()
        assert [flat.index(k) for k in range(n)] == sorted(flat.index(k) for k in range(n))
        # connected: reading the map back through the codec keeps its regions
        desc = codec.encode({"regions": regions.tolist(), "given": ["."] * n})
        assert codec.decode({"W": W, "H": H, "n": n}, desc)["regions"] == regions.tolist()


def test_reduction_keeps_a_colour_of_each_kind_and_uniqueness():
    inst = T.load(OTHER_ID)
    st = inst.data["state"]
    engine, x = colouring_model(st["neighbours"])
    colour = np.asarray([codec.COLOURS.index(v) for v in ("B", "G", "Y", "B", "Y", "R")])
    model = engine.sample(assumptions=[int(x[i, k]) for i, k in enumerate(colour)])
    for grade in (0, 1, None):
        shown = reduce_colours(engine, x, colour, model, np.random.default_rng(2), grade)
        assert sorted(set(colour[shown].tolist())) == [0, 1, 2, 3]
        assert engine.unique([int(x[i, colour[i]]) for i in shown], model)


def _kernel_reduce(graph, colour, order, grade, keep, least=1):
    n = len(colour)
    return kernel.reduce(*graph, colour, order, grade, keep, np.bincount(colour, minlength=4), np.zeros(n, np.int8),
                         np.zeros(4 * n + 4, np.int64), np.zeros(4 * n + 4, np.int8), np.zeros(n + 1, np.int64), least)


def test_the_compiled_reduction_decides_as_the_clause_level_deduction():
    """The generator's reduction on sets of possible colours keeps the clues that propagation and
    probing on the region-level formula keep, and grades as the engine grades."""
    for H, W, n, seed in ((15, 20, 30, 0), (15, 20, 30, 1), (6, 8, 12, 2), (25, 30, 75, 3), (3, 3, 9, 4)):
        regions, *graph = grown(np.random.default_rng(seed), H, W, n)
        nb = neighbour_lists(*graph)
        assert nb == codec.neighbours_of(regions) and regions == grow_map(np.random.default_rng(seed), H, W, n).tolist()
        colour = random_colouring(np.random.default_rng(seed), *graph)
        assert all(colour[a] != colour[b] for a in range(n) for b in nb[a])
        engine, x = colouring_model(nb)
        model = engine.sample([int(x[i, colour[i]]) for i in range(n)])
        for grade in (0, 1):
            want = reduce_colours(engine, x, colour, model, np.random.default_rng(seed), grade)
            keep = np.ones(n, np.int8)
            got = _kernel_reduce(graph, colour, np.random.default_rng(seed).permutation(n), grade, keep)
            assert np.flatnonzero(keep).tolist() == want
            assert got == engine.grade([int(x[i, colour[i]]) for i in want])
        for frac in (0.3, 0.5, 0.7):  # the grade of other clue sets (no reduction)
            keep = (np.random.default_rng(seed).random(n) < frac).astype(np.int8)
            got = _kernel_reduce(graph, colour, np.zeros(0, np.int64), 0, keep)
            assert got == engine.grade([int(x[i, colour[i]]) for i in np.flatnonzero(keep)])


def test_the_colouring_search_hands_over_when_it_runs_out_of_steps(monkeypatch):
    _, *graph = grown(np.random.default_rng(0), 15, 20, 30)
    n = 30
    pref = np.tile(np.arange(4, dtype=np.int64), n)
    col, scratch = np.zeros(n, np.int64), (np.zeros(n, np.int64), np.zeros(n, np.int64))
    assert not kernel.colour(*graph, pref, np.arange(n, dtype=np.int64), col, *scratch, 5)
    assert kernel.colour(*graph, pref, np.arange(n, dtype=np.int64), col, *scratch, 100_000)
    monkeypatch.setattr(map_geometry, "COLOUR_STEPS", 0)  # SAT takes over
    colour = random_colouring(np.random.default_rng(1), *graph)
    nb = neighbour_lists(*graph)
    assert all(colour[a] != colour[b] for a in range(n) for b in nb[a])


def test_generation_is_deterministic_graded_and_unique():
    for params, grade in (({"difficulty": "trivial"}, 0), ({"difficulty": "easy"}, 1), (T.decode_params("8x6n12du"), 2)):
        a = T.generate(np.random.default_rng(11), **params)
        assert a == T.generate(np.random.default_rng(11), **params)
        assert T.count_solutions(a) == 1 and T.grade(a) <= grade
        assert T.verify(a, a.data["solution"]).solved
        assert T.to_game_id(a) == a.data["game_id"] and T.load(a.data["game_id"]).data["state"] == a.data["state"]
        given = [g for g in a.data["state"]["given"] if g != "."]
        assert sorted(set(given)) == ["B", "G", "R", "Y"]


def test_claims():
    inst = T.load(OTHER_ID)
    check_labels(inst, correct=[{"type": "Colour", "region": 4, "v": "Y"}, {"type": "NotColour", "region": 4, "v": "R"},
                                {"type": "Given", "region": 5, "v": "R"}, {"type": "Adjacent", "a": 3, "b": 5}],
                 incorrect=[{"type": "Colour", "region": 4, "v": "B"}, {"type": "Colour", "region": 9, "v": "B"},
                            {"type": "Given", "region": 4, "v": "Y"}, {"type": "Adjacent", "a": 0, "b": 2}])
    assert solution_claims(inst) == [{"type": "Colour", "region": k, "v": v}
                                     for k, v in enumerate(["B", "G", "Y", "B", "Y", "R"])]


def test_interactive_moves():
    inst = T.load(OTHER_ID)
    state = T.initial_state(inst)
    assert state[0][0] == "B" and state[2][0] == "."
    assert T.check_move(inst, state, (0, 0, "R")) is not None  # a given region's cell
    state = T.apply(inst, state, T.parse_move('{"r": 2, "c": 0, "v": "Y"}'))
    assert T.state_answer(inst, state)[2][0] == "Y" and not T.is_goal(inst, state)
    assert T.is_goal(inst, play_golden(T, inst, state))


def test_prompt_lists_neighbours_and_renders():
    inst = T.load(SPEC_ID)
    text = T.prompt(inst)
    assert '"neighbours": [' in text and "[0, 1, 3, 4]" in text and '"given": ["B", ".", "G", "R", "Y"]' in text
    assert "1Y" in T.render(inst, SPEC_SOLUTION)
    assert T.render_rgb(inst, SPEC_SOLUTION).shape[2] == 3
