#!/usr/bin/env python3
"""Borderlands in plain Python: the twin of Crown's `borderlands` pack.

The same rules as scripts/borderlands/rules.rhai and the same two bots (random, and the
greedy bot of scripts/borderlands/bots.rhai), written as ordinary Python with the standard
library only. The map (territories, regions, their bonuses and adjacency) is read from the
pack's own content/borderlands/board.toml and the rule settings from its pack.toml
[options] (and the default scenario's overrides), so the numbers live in one place.

    python3 tools/twins/borderlands.py --games 1000 --players 4 --agents greedy --seed 1 [--json]
"""

import argparse
import json
import random
import sys
import time
import tomllib
from pathlib import Path

PACK_ID = "borderlands"


# ---------------------------------------------------------------- the pack's data


class Territory:
    def __init__(self, space_id, name, region):
        self.id = space_id
        self.name = name
        self.region = region
        self.neighbours = []

    def __repr__(self):
        return self.name


class Region:
    def __init__(self, space_id, name, bonus):
        self.id = space_id
        self.name = name
        self.bonus = bonus
        self.territories = []


class Board:
    """The map of board.toml: territories with their neighbours, and regions."""

    def __init__(self, pack_dir):
        with open(pack_dir / "board.toml", "rb") as f:
            spaces = tomllib.load(f).get("space", [])
        self.regions = []
        by_id = {}
        for space in spaces:
            attrs = space.get("attrs", {})
            if attrs.get("kind") == "region":
                region = Region(space["id"], space["name"], space.get("values", {}).get("bonus", 0))
                self.regions.append(region)
                by_id[region.id] = region
        self.territories = []
        for space in spaces:
            attrs = space.get("attrs", {})
            if attrs.get("kind") == "territory":
                region = by_id[attrs["region"]]
                t = Territory(space["id"], space["name"], region)
                self.territories.append(t)
                region.territories.append(t)
                by_id[t.id] = t
        # Adjacency runs both ways, as the engine makes it.
        for space in spaces:
            for other in space.get("adjacent", []):
                a, b = by_id[space["id"]], by_id[other]
                if b not in a.neighbours:
                    a.neighbours.append(b)
                if a not in b.neighbours:
                    b.neighbours.append(a)


def find_project(start):
    """The Crown project holding this file: the folder with content/<pack>/."""
    for folder in [start, *start.parents]:
        if (folder / "content" / PACK_ID / "pack.toml").exists():
            return folder
    raise SystemExit(f"cannot find content/{PACK_ID}/pack.toml above {start}")


def load_options(pack_dir):
    """The rule settings: pack.toml's [options], then the default scenario's."""
    with open(pack_dir / "pack.toml", "rb") as f:
        options = dict(tomllib.load(f).get("options", {}))
    for path in sorted((pack_dir / "scenarios").glob("*.toml")):
        with open(path, "rb") as f:
            scenario = tomllib.load(f)
        if scenario.get("default"):
            options.update(scenario.get("options", {}))
    return options


# ---------------------------------------------------------------- the rules

STOP = "stop"  # the option that stops attacking
END = "end"  # the option that ends the turn without fortifying


class Seat:
    def __init__(self, number, agent):
        self.number = number
        self.name = f"P{number + 1}"
        self.agent = agent
        self.reserve = 0  # armies still to place
        self.out = False


class Game:
    def __init__(self, board, options, agents, rng):
        self.board = board
        self.options = options
        self.rng = rng
        self.seats = [Seat(i, agent) for i, agent in enumerate(agents)]
        self.holder = {}  # territory -> seat
        self.armies = {}  # territory -> armies on it
        self.round = 0
        self.moving_from = None  # the territory armies are moving from, while their number is chosen
        self.decisions = 0
        self.ending = ""

    # -- the table

    def held(self, seat):
        return [t for t in self.board.territories if self.holder[t] is seat]

    def army_count(self, seat):
        return sum(self.armies[t] for t in self.held(seat))

    def holds_region(self, seat, region):
        return all(self.holder[t] is seat for t in region.territories)

    def enemy_neighbours(self, seat, t):
        return [n for n in t.neighbours if self.holder[n] is not seat]

    def borders_enemy(self, seat, t):
        return bool(self.enemy_neighbours(seat, t))

    def alive(self):
        return [seat for seat in self.seats if not seat.out]

    def next_seat(self, seat):
        """The seat after `seat` in seat order that is still in the game."""
        n = len(self.seats)
        for i in range(1, n + 1):
            other = self.seats[(seat.number + i) % n]
            if not other.out:
                return other
        return seat

    def reinforcements(self, seat):
        n = max(self.options["min_reinforcement"], len(self.held(seat)) // self.options["territories_per_army"])
        for region in self.board.regions:
            if self.holds_region(seat, region):
                n += region.bonus
        return n

    # -- a game

    def play(self):
        """Play a game; return the winners."""
        self.deal()
        self.deploy()
        self.round = 1
        seat = self.seats[0]
        while True:
            self.take_turn(seat)
            if len(self.alive()) == 1:
                self.ending = "conquest"
                return [seat.number]
            nxt = self.next_seat(seat)
            if nxt.number <= seat.number:  # P1 opens every round
                if self.round == self.options["round_cap"]:
                    self.ending = "round cap"
                    return self.most_territories()
                self.round += 1
            seat = nxt

    def deal(self):
        """The territories dealt one at a time from P1, an army on each; the rest of each
        player's share of the army pool is left to place."""
        deck = list(self.board.territories)
        self.rng.shuffle(deck)
        for i, t in enumerate(deck):
            self.holder[t] = self.seats[i % len(self.seats)]
            self.armies[t] = 1
        share = self.options["army_pool"] // len(self.seats)
        for seat in self.seats:
            seat.reserve = max(0, share - len(self.held(seat)))

    def deploy(self):
        """The players in turn place their starting armies, one at a time."""
        while True:
            placing = [seat for seat in self.seats if seat.reserve > 0]
            if not placing:
                return
            for seat in placing:
                self.place_army(seat)

    def place_army(self, seat):
        t = self.choose(seat, "place", self.held(seat))
        self.armies[t] += 1
        seat.reserve -= 1

    def take_turn(self, seat):
        seat.reserve = self.reinforcements(seat)
        while seat.reserve > 0:
            self.place_army(seat)

        while True:
            choice = self.choose(seat, "attack", self.attack_options(seat) + [STOP])
            if choice == STOP:
                break
            src, dst = choice
            if self.battle(seat, src, dst):
                self.move_armies(seat, "occupy", src, dst)
                if len(self.alive()) == 1:
                    return

        choice = self.choose(seat, "fortify", self.fortify_options(seat) + [END])
        if choice != END:
            src, dst = choice
            self.move_armies(seat, "regroup", src, dst)

    def move_armies(self, seat, what, src, dst):
        """Seat chooses how many armies move from src to dst (into a territory just taken
        for `occupy`, fortifying for `regroup`), and they move."""
        self.moving_from = src
        n = self.choose(seat, what, self.move_options(src))
        self.armies[src] -= n
        self.armies[dst] += n

    def attack_options(self, seat):
        return [
            (src, dst)
            for src in self.held(seat)
            if self.armies[src] >= 2
            for dst in self.enemy_neighbours(seat, src)
        ]

    def battle(self, seat, src, dst):
        """One roll of the dice; returns whether the attacker took the territory."""
        defender = self.holder[dst]
        attacking = self.roll_dice(min(self.options["attack_dice"], self.armies[src] - 1))
        defending = self.roll_dice(min(self.options["defence_dice"], self.armies[dst]))
        for a, d in zip(attacking, defending):
            if a > d:
                self.armies[dst] -= 1
            else:
                self.armies[src] -= 1
        if self.armies[dst] > 0:
            return False
        self.holder[dst] = seat
        if not self.held(defender):
            defender.out = True
        return True

    def roll_dice(self, n):
        return sorted((self.rng.randint(1, self.options["die_faces"]) for _ in range(n)), reverse=True)

    def move_options(self, src):
        """All but one army, half of those (rounded up), or one; each number once."""
        movable = self.armies[src] - 1
        half = (movable + 1) // 2
        options = [movable]
        if half < movable:
            options.append(half)
        if 1 < half:
            options.append(1)
        return options

    def fortify_options(self, seat):
        return [
            (src, dst)
            for src in self.held(seat)
            if self.armies[src] >= 2
            for dst in src.neighbours
            if self.holder[dst] is seat
        ]

    def most_territories(self):
        """The winners at the round cap: the most territories, ties broken by armies."""
        best = max((len(self.held(seat)), self.army_count(seat)) for seat in self.alive())
        return [seat.number for seat in self.alive() if (len(self.held(seat)), self.army_count(seat)) == best]

    def choose(self, seat, what, options):
        self.decisions += 1
        if len(options) == 1:
            return options[0]
        return seat.agent.choose(self, seat, what, options)


# ---------------------------------------------------------------- the bots


class RandomBot:
    def __init__(self, rng):
        self.rng = rng

    def choose(self, game, seat, what, options):
        return self.rng.choice(options)


class GreedyBot:
    """The greedy bot of scripts/borderlands/bots.rhai: the best-ranked option, ties at random."""

    def __init__(self, rng):
        self.rng = rng

    def choose(self, game, seat, what, options):
        scores = [self.score(game, seat, what, o) for o in options]
        best = max(scores)
        return self.rng.choice([o for o, s in zip(options, scores) if s == best])

    def score(self, game, seat, what, o):
        armies = game.armies
        if what == "place":
            # The territory bordering the most enemy armies.
            return sum(armies[n] for n in game.enemy_neighbours(seat, o))
        if what == "attack":
            if o == STOP:
                return 0
            src, dst = o
            return armies[src] - armies[dst] if armies[src] > armies[dst] else -1
        if what == "fortify":
            if o == END:
                return 0
            src, dst = o
            if game.borders_enemy(seat, src) or not game.borders_enemy(seat, dst):
                return -1
            return armies[src] - 1
        if what == "regroup":
            # Fortifying: all but one.
            return o
        # Into a territory just taken: half when the armies' territory still borders an
        # enemy, else all but one.
        src = game.moving_from
        movable = armies[src] - 1
        wanted = (movable + 1) // 2 if game.borders_enemy(seat, src) else movable
        return -abs(o - wanted)


AGENTS = {"random": RandomBot, "greedy": GreedyBot}


# ---------------------------------------------------------------- running games


def simulate(games, players, agent_kind, seed, project):
    pack_dir = project / "content" / PACK_ID
    board = Board(pack_dir)
    options = load_options(pack_dir)
    rng = random.Random(seed)
    wins = [0] * players
    territories = [0] * players
    shared = 0
    endings = {"conquest": 0, "round cap": 0}
    decisions = 0
    rounds = 0
    start = time.process_time()
    for _ in range(games):
        agents = [AGENTS[agent_kind](rng) for _ in range(players)]
        game = Game(board, options, agents, rng)
        winners = game.play()
        for p in winners:
            wins[p] += 1
        if len(winners) > 1:
            shared += 1
        for seat in game.seats:
            territories[seat.number] += len(game.held(seat))
        endings[game.ending] += 1
        decisions += game.decisions
        rounds += game.round
    cpu = time.process_time() - start
    return {
        "games": games,
        "players": players,
        "agents": agent_kind,
        "seed": seed,
        "cpu_seconds": round(cpu, 4),
        "games_per_cpu_second": round(games / cpu, 2) if cpu > 0 else None,
        "mean_length": round(decisions / games, 2),
        "mean_rounds": round(rounds / games, 3),
        "mean_score": [round(total / games, 3) for total in territories],
        "seat_wins": [round(w / games, 4) for w in wins],
        "shared_win_rate": round(shared / games, 4),
        "endings": {k: round(v / games, 4) for k, v in endings.items()},
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description="Borderlands in plain Python: the twin of Crown's borderlands pack.")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=4, choices=[2, 3, 4])
    parser.add_argument("--agents", default="greedy", choices=sorted(AGENTS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--project", type=Path, default=None, help="the Crown project (default: found above this file)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    project = args.project or find_project(Path(__file__).resolve().parent)
    stats = simulate(args.games, args.players, args.agents, args.seed, project)
    if args.json:
        print(json.dumps(stats, sort_keys=True))
        return
    print(f"Borderlands twin: {stats['games']} games, {stats['players']} players, {stats['agents']} bots, seed {stats['seed']}")
    print(f"CPU seconds:          {stats['cpu_seconds']:.3f}")
    print(f"games per CPU second: {stats['games_per_cpu_second']}")
    print(f"mean game length:     {stats['mean_length']} decisions, {stats['mean_rounds']} rounds")
    print(f"ended by conquest:    {100 * stats['endings']['conquest']:.1f}%")
    print(f"ended at round cap:   {100 * stats['endings']['round cap']:.1f}%")
    print(f"shared wins:          {100 * stats['shared_win_rate']:.1f}%")
    for p in range(stats["players"]):
        print(f"P{p + 1}: mean territories {stats['mean_score'][p]:.2f}, wins {100 * stats['seat_wins'][p]:.1f}%")


if __name__ == "__main__":
    sys.exit(main())
