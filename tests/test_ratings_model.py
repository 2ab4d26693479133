"""The rating model's properties (no database), and the calibration bench's league code."""

from __future__ import annotations

import json
import math
import random
from datetime import UTC, datetime

import pytest
from bench import ratings_calibrate as bench
from bench import ratings_league as league_code

from dicehall import games
from dicehall.engine import codec
from dicehall.engine.dice import Seeded
from dicehall.engine.game import Result
from dicehall.engine.table import play_out
from dicehall.server.domain.games.records import GameRecord, SeatInfo
from dicehall.server.domain.ratings import kinds, model, store
from dicehall.server.domain.ratings.model import Skill

KIND = "tenthousand"
#: dicehall's own rating kinds, in the site's order.
KINDS = (
    "tenthousand", "boatzee", "boatzee-double", "boatzee-triple", "boss", "holdem", "bullseye",
)  # fmt: skip
#: Their calibrated constants (beta, tau), version 2 (docs/site-ratings.md "Calibration").
CALIBRATED = {
    "tenthousand": (5.8, 0.116),
    "boatzee": (2.2, 0.044),
    "boatzee-double": (2.4, 0.048),
    "boatzee-triple": (2.0, 0.04),
    "boss": (15.0, 0.3),
    "holdem": (6.1, 0.122),
    "bullseye": (7.7, 0.154),
}


def changes(before: list[Skill], places: list[int], kind: str = KIND) -> list[float]:
    """Each seat's change of mu after one game."""
    after = model.rate(kind, before, places)
    return [new.mu - old.mu for old, new in zip(before, after, strict=True)]


def test_a_shared_place_is_rated_like_a_draw() -> None:
    assert changes([Skill(), Skill()], [1, 1]) == pytest.approx([0.0, 0.0], abs=1e-12)
    # Equal players sharing a place get equal changes, whatever the others did.
    shared = changes([Skill(), Skill(), Skill(), Skill()], [1, 2, 2, 4])
    assert shared[1] == pytest.approx(shared[2], abs=1e-12)
    assert shared[0] > shared[1] > shared[3]


def test_a_shared_second_place_gains_more_than_an_outright_fourth_in_eight_seats() -> None:
    field = [Skill() for _ in range(8)]
    shared_second = changes(field, [1, 2, 2, 4, 5, 6, 7, 8])[1]
    fourth = changes(field, [1, 2, 3, 4, 5, 6, 7, 8])[3]
    assert shared_second > fourth
    # And a shared second is worth less than an outright second.
    assert shared_second < changes(field, [1, 2, 3, 4, 5, 6, 7, 8])[1]


@pytest.mark.parametrize("kind", KINDS)
def test_a_win_raises_mu_and_a_loss_lowers_it(kind: str) -> None:
    winner, loser = changes([Skill(27, 5), Skill(24, 7)], [1, 2], kind)
    assert winner > 0 > loser


@pytest.mark.parametrize("seats", [2, 3, 5, 8])
def test_mu_changes_sum_to_zero_for_equal_sigmas(seats: int) -> None:
    rng = random.Random(seats)
    for _ in range(20):
        before = [Skill(rng.uniform(10, 40), 3.5) for _ in range(seats)]
        places = sorted(rng.randint(1, seats) for _ in range(seats))
        places = model.places_of(_groups(places), seats)
        assert sum(changes(before, places)) == pytest.approx(0.0, abs=1e-9)


def _groups(values: list[int]) -> list[list[int]]:
    by_value: dict[int, list[int]] = {}
    for seat, value in enumerate(values):
        by_value.setdefault(value, []).append(seat)
    return [by_value[v] for v in sorted(by_value)]


def test_places_of_is_competition_ranking() -> None:
    assert model.places_of([[2], [0, 3], [1]], 4) == [2, 4, 1, 2]
    assert model.places_of([[0, 1, 2]], 3) == [1, 1, 1]
    assert model.places_of([[1], [0]], 2) == [2, 1]
    with pytest.raises(ValueError):
        model.places_of([[0], [2]], 3)


def test_a_rating_widens_with_idle_days_up_to_the_start_sigma() -> None:
    settled = Skill(30.0, 2.0)
    assert model.widened(settled, 0) == settled
    assert model.widened(settled, -5) == settled
    month, year = model.widened(settled, 30), model.widened(settled, 365)
    assert settled.sigma < month.sigma < year.sigma < model.SIGMA
    assert month.mu == year.mu == 30.0
    assert model.widened(settled, 10**7).sigma == model.SIGMA
    assert model.widened(Skill(), 100).sigma == model.SIGMA


def test_shown_conservative_and_provisional() -> None:
    assert model.shown(Skill()) == 1500
    assert model.shown(Skill(mu=26.0)) == 1540
    assert model.shown(Skill(mu=20.0)) == 1300
    assert model.conservative(Skill(30.0, 2.5)) == pytest.approx(25.0)
    assert model.provisional(Skill(30.0, 2.0), model.PROVISIONAL_GAMES - 1)
    assert not model.provisional(Skill(30.0, 2.0), model.PROVISIONAL_GAMES)
    assert model.provisional(Skill(30.0, model.PROVISIONAL_SIGMA + 0.1), 500)


def test_every_kind_has_calibrated_constants() -> None:
    # dicehall's own kinds come first, from the games' entries, with the calibrated constants
    # of version 2; a plug-in game's kinds (if one is registered) follow them.
    assert kinds.names()[: len(KINDS)] == KINDS
    assert model.CONSTANTS_VERSION == 2
    for kind in KINDS:
        constants = model.constants(kind)
        assert (constants.beta, constants.tau) == CALIBRATED[kind], kind
    for kind in kinds.names():
        constants = model.constants(kind)
        # tau follows beta as the bench chooses it (bench/ratings_calibrate.py).
        assert constants.tau == round(constants.beta / bench.TAU_RATIO, 3)
    with pytest.raises(KeyError):
        model.constants("chess")


# -- the calibration bench ------------------------------------------------------------------

FAST = league_code.KindSetup("boss", {}, (("random",), ("heuristic",)), (2,))


def test_tables_seat_every_player_once_a_round() -> None:
    rng = random.Random(3)
    for sizes in [(2,), (2, 2, 3, 4), (3, 3, 4, 5)]:
        for players in range(6, 20, 2):
            drawn = league_code.table_sizes(rng, players, sizes)
            assert sum(drawn) == players and set(drawn) <= set(sizes)
    league, tasks = league_code.schedule("bullseye", 3, 4, seed=5)
    for round_ in range(4):
        seated = [p for game in league.played if game.round == round_ for p in game.players]
        assert sorted(seated) == list(range(len(league.tiers)))
    assert len(tasks) == len(league.played)


@pytest.mark.parametrize(
    ("kind", "bots"),
    [("boss", ("heuristic", "random")), ("bullseye", ("heuristic", "random", "heuristic"))],
)
def test_the_bench_plays_the_engines_game(kind: str, bots: tuple[str, ...]) -> None:
    entry = games.get(league_code.SETUPS[kind].game)
    for seed in range(3):
        rng = random.Random(seed)
        players = [entry.bot(name, random.Random(rng.getrandbits(64))) for name in bots]
        options = entry.game.options({})
        _, result, _ = play_out(
            entry.game, len(bots), options, players, Seeded(rng.getrandbits(64)), record=False
        )
        assert league_code.play_game(kind, bots, seed) == result


def test_the_bench_places_games_as_the_site_does() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    for winners, scores in [((2,), (0, 0, 900, 30)), ((0, 3), (5, 2, 2, 5)), ((1,), (3, 7))]:
        result = Result(winners, scores, 10)
        record = GameRecord(
            1, "x", "{}", len(scores), "finished", 1, None, None, codec.dumps(result), 0, at
        )
        seats = [SeatInfo(s, s + 1, f"u{s}", None) for s in range(len(scores))]
        expected = model.places_of(store.place_groups(record, seats), len(scores))
        assert list(league_code.places(result)) == expected
    assert json.loads(codec.dumps(Result((0,), (1, 0), 1)))["winners"] == [0]


def test_a_short_league_runs_fits_and_ranks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(league_code.SETUPS, "boss", FAST)
    league = league_code.simulate(["boss"], copies=2, rounds=60, seed=7, workers=1)["boss"]
    assert league.tiers == [0, 0, 1, 1]
    assert len(league.played) == 60 * 2
    assert all(sorted(game.places) in ([1, 2], [1, 1]) for game in league.played)
    # The bench rates exactly as the site's model does with the same constants.
    constants = model.constants("boss")
    run = bench.replay(league, constants.beta, constants.tau)
    mu, sigma = [model.MU] * 4, [model.SIGMA] * 4
    for game in league.played:
        after = model.rate(
            "boss", [Skill(mu[p], sigma[p]) for p in game.players], list(game.places)
        )
        for p, skill in zip(game.players, after, strict=True):
            mu[p], sigma[p] = skill.mu, skill.sigma
    assert (run.mu, run.sigma) == (mu, sigma)
    # The fit finds the grid's best or better; the figures stop at the league's length.
    beta, tried = bench.fit_beta(league, coarse=1)
    assert 1 <= beta <= 256
    assert bench.mean_log_likelihood(league, beta) >= max(tried.values()) - 1e-3
    figures = bench.rank_figures(league, beta, beta / bench.TAU_RATIO)
    assert set(figures["spearman"]) == {"50"}
    assert figures["ordered"]["50"] == "1/1" and figures["ordered_first"]["50"] is True
    assert bench.best_spearman(league.tiers) == pytest.approx(0.894, abs=1e-3)  # 2 tiers of 2
    assert bench.tier_scores(league)[0] < bench.tier_scores(league)[1]
    # Without the random players, only games between the two heuristic players are left.
    rest = bench.without_random(league)
    assert rest.played and all(set(game.players) == {2, 3} for game in rest.played)
    assert all(sorted(game.places) in ([1, 2], [1, 1]) for game in rest.played)


def test_win_chances_are_the_models_own_bradley_terry_probabilities() -> None:
    strong, weak = Skill(30.0, 3.0), Skill(25.0, 3.0)
    beta = model.constants("boss").beta
    c = math.sqrt(2 * beta**2 + 3.0**2 + 3.0**2)
    first, second = model.win_chances("boss", [strong, weak])
    assert first == pytest.approx(1 / (1 + math.exp(-(30.0 - 25.0) / c)))
    assert first + second == pytest.approx(1.0)
    # More luck, less sure: the same gap means less in Boss Dice than in Boatzee.
    assert model.win_chances("boatzee", [strong, weak])[0] > first
    many = model.win_chances("bullseye", [Skill(), Skill(), Skill(28.0, 3.0), Skill(22.0, 3.0)])
    assert sum(many) == pytest.approx(1.0)
    assert many[0] == pytest.approx(many[1])
    assert many[2] > many[0] > many[3]


def test_a_luck_heavy_kind_settles_at_a_wider_sigma() -> None:
    assert model.settled_sigma(None) == model.PROVISIONAL_SIGMA
    assert model.settled_sigma("boss") == pytest.approx(
        model.SETTLED_SHARE * model.constants("boss").beta
    )
    settled_boss = Skill(25.0, 5.5)  # the calibration's median after 1000 games
    assert not model.provisional(settled_boss, 1000, "boss")
    assert model.provisional(settled_boss, 1000, "boatzee")


@pytest.mark.parametrize("kind", ["boss", "boatzee"])
def test_without_drift_sigma_keeps_shrinking_and_one_game_is_rated_alike(kind: str) -> None:
    """Bots never change: rated without drift, their uncertainty shrinks below where a
    person's settles, and a single game moves mu as the site's update does, up to tau."""
    steady = drifting = [model.Skill(), model.Skill()]
    for game in range(400):
        places = [1, 2] if game % 3 else [2, 1]
        steady = model.rate(kind, steady, places, drift=False)
        drifting = model.rate(kind, drifting, places)
    assert steady[0].sigma < drifting[0].sigma
    assert steady[0].mu > steady[1].mu and drifting[0].mu > drifting[1].mu
    once = model.rate(kind, [model.Skill(), model.Skill()], [1, 2], drift=False)
    site = model.rate(kind, [model.Skill(), model.Skill()], [1, 2])
    assert once[0].mu == pytest.approx(site[0].mu, rel=1e-3)
