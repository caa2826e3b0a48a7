#!/usr/bin/env python3
"""Oh Hell in plain Python: the twin of Crown's `oh-hell` pack.

The same rules as scripts/oh-hell/rules.rhai and the same two bots (random, and the
greedy bot of scripts/oh-hell/bots.rhai), written as ordinary Python with the standard
library only. The cards are read from the pack's own card list (content/oh-hell/cards/*.csv)
and the rule settings from its pack.toml [options] (and the default scenario's overrides),
so the numbers live in one place.

    python3 tools/twins/oh_hell.py --games 1000 --players 4 --agents greedy --seed 1 [--json]
"""

import argparse
import csv
import json
import random
import sys
import time
import tomllib
from pathlib import Path

PACK_ID = "oh-hell"


# ---------------------------------------------------------------- the pack's data


class Card:
    def __init__(self, card_id, name, suit, rank):
        self.id = card_id
        self.name = name
        self.suit = suit
        self.rank = rank

    def __repr__(self):
        return self.name


def find_project(start):
    """The Crown project holding this file: the folder with content/<pack>/."""
    for folder in [start, *start.parents]:
        if (folder / "content" / PACK_ID / "pack.toml").exists():
            return folder
    raise SystemExit(f"cannot find content/{PACK_ID}/pack.toml above {start}")


def load_cards(pack_dir):
    """Every card of the deck, one per copy, from the pack's CSV card lists."""
    cards = []
    for path in sorted((pack_dir / "cards").glob("*.csv")):
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            header = next(reader)
            for row in reader:
                if not row or not row[0].strip() or row[0].startswith("#"):
                    continue
                fields = dict(zip(header, row))
                decks = [d.strip() for d in fields.get("decks", "").split(",")]
                if "deck" not in decks:
                    continue
                copies = int(fields["count"]) if fields.get("count") else 1
                for _ in range(copies):
                    cards.append(Card(fields["id"], fields["name"], fields["kind"], int(fields["value.rank"])))
    return cards


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


def beats(a, b, trump):
    """Whether card a beats card b, the card winning the trick so far."""
    if a.suit == b.suit:
        return a.rank > b.rank
    return a.suit == trump


class Seat:
    def __init__(self, number, agent):
        self.number = number
        self.name = f"P{number + 1}"
        self.agent = agent
        self.hand = []
        self.bid = 0
        self.tricks = 0
        self.points = 0


class Game:
    def __init__(self, deck, options, agents, rng):
        self.deck = list(deck)
        self.options = options
        self.rng = rng
        self.seats = [Seat(i, agent) for i, agent in enumerate(agents)]
        self.trump_card = None
        self.trick = []  # (seat, card) in the order played
        self.dealer = 0
        self.round = 0
        self.decisions = 0
        self.bids_made = 0
        self.bids = 0

    # -- rounds and hands

    def largest_hand(self):
        return min(self.options["max_hand"], len(self.deck) // len(self.seats))

    def last_round(self):
        return 2 * self.largest_hand() - 1

    def hand_size(self, r):
        top = self.largest_hand()
        return r if r <= top else 2 * top - r

    def from_dealers_left(self):
        n = len(self.seats)
        return [self.seats[(self.dealer + i) % n] for i in range(1, n + 1)]

    def trump_suit(self):
        return self.trump_card.suit if self.trump_card else ""

    def trick_winner(self):
        best_seat, best = self.trick[0]
        for seat, card in self.trick:
            if beats(card, best, self.trump_suit()):
                best_seat, best = seat, card
        return best_seat, best

    def bids_total(self):
        return sum(seat.bid for seat in self.seats)

    # -- a game

    def play(self):
        self.dealer = self.rng.randrange(len(self.seats))
        while True:
            self.round += 1
            self.play_round()
            if self.round == self.last_round():
                break
            self.dealer = (self.dealer + 1) % len(self.seats)
        best = max(seat.points for seat in self.seats)
        return [seat.number for seat in self.seats if seat.points == best]

    def play_round(self):
        n = self.hand_size(self.round)
        cards = list(self.deck)
        self.rng.shuffle(cards)
        for seat in self.seats:
            seat.hand = []
            seat.bid = 0
            seat.tricks = 0
        order = self.from_dealers_left()
        for _ in range(n):
            for seat in order:
                seat.hand.append(cards.pop())
        self.trump_card = cards.pop() if cards else None

        for seat in order:
            self.bid(seat)

        leader = order[0]
        for _ in range(n):
            self.trick = []
            seat = leader
            for _ in range(len(self.seats)):
                self.play_card(seat)
                seat = self.seats[(seat.number + 1) % len(self.seats)]
            leader, _ = self.trick_winner()
            leader.tricks += 1

        for seat in self.seats:
            self.bids += 1
            if seat.tricks == seat.bid:
                self.bids_made += 1
                seat.points += self.options["made_bonus"] + self.options["trick_points"] * seat.bid

    def hooked_bid(self, seat):
        """The bid the dealer may not make, or -1 when every bid is open."""
        if seat.number != self.dealer or not self.options["hook"]:
            return -1
        return self.hand_size(self.round) - self.bids_total()

    def bid(self, seat):
        options = [b for b in range(self.hand_size(self.round) + 1) if b != self.hooked_bid(seat)]
        seat.bid = self.choose(seat, "bid", options)

    def playable(self, seat):
        # By suit, in the order of the `suit_order` setting, then by rank (as the rules sort).
        suits = self.options["suit_order"]
        hand = sorted(seat.hand, key=lambda card: suits.index(card.suit) * 100 + card.rank)
        if not self.trick:
            return hand
        led = self.trick[0][1].suit
        follow = [card for card in hand if card.suit == led]
        return follow if follow else hand

    def play_card(self, seat):
        card = self.choose(seat, "play", self.playable(seat))
        seat.hand.remove(card)
        self.trick.append((seat, card))

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
    """The greedy bot of scripts/oh-hell/bots.rhai: the best-ranked option, ties at random."""

    def __init__(self, rng):
        self.rng = rng

    def choose(self, game, seat, what, options):
        if what == "bid":
            likely = self.likely_winners(seat, game.trump_suit())
            scores = [-abs(bid - likely) for bid in options]
        else:
            scores = [self.play_value(game, seat, card) for card in options]
        best = max(scores)
        return self.rng.choice([o for o, s in zip(options, scores) if s == best])

    @staticmethod
    def likely_winners(seat, trump):
        """A trump of 10 or higher, or the Ace of another suit."""
        count = 0
        for card in seat.hand:
            if card.suit == trump:
                if card.rank >= 10:
                    count += 1
            elif card.rank == 14:
                count += 1
        return count

    @staticmethod
    def strength(card, trump):
        return 100 + card.rank if card.suit == trump else card.rank

    def play_value(self, game, seat, card):
        trump = game.trump_suit()
        s = self.strength(card, trump)
        needs = seat.tricks < seat.bid
        if not game.trick:
            return s if needs else -s
        _, best = game.trick_winner()
        wins = beats(card, best, trump)
        if needs:
            return 1000 - s if wins else -s
        return -s if wins else 1000 + s


AGENTS = {"random": RandomBot, "greedy": GreedyBot}


# ---------------------------------------------------------------- running games


def simulate(games, players, agent_kind, seed, project):
    pack_dir = project / "content" / PACK_ID
    deck = load_cards(pack_dir)
    options = load_options(pack_dir)
    rng = random.Random(seed)
    wins = [0] * players
    points = [0] * players
    decisions = 0
    bids = 0
    bids_made = 0
    start = time.process_time()
    for _ in range(games):
        agents = [AGENTS[agent_kind](rng) for _ in range(players)]
        game = Game(deck, options, agents, rng)
        for p in game.play():
            wins[p] += 1
        for seat in game.seats:
            points[seat.number] += seat.points
        decisions += game.decisions
        bids += game.bids
        bids_made += game.bids_made
    cpu = time.process_time() - start
    return {
        "games": games,
        "players": players,
        "agents": agent_kind,
        "seed": seed,
        "cpu_seconds": round(cpu, 4),
        "games_per_cpu_second": round(games / cpu, 2) if cpu > 0 else None,
        "mean_length": round(decisions / games, 2),
        "mean_score": [round(total / games, 3) for total in points],
        "seat_wins": [round(w / games, 4) for w in wins],
        "exact_bid_rate": round(bids_made / bids, 4),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description="Oh Hell in plain Python: the twin of Crown's oh-hell pack.")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=4, choices=[3, 4, 5])
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
    print(f"Oh Hell twin: {stats['games']} games, {stats['players']} players, {stats['agents']} bots, seed {stats['seed']}")
    print(f"CPU seconds:          {stats['cpu_seconds']:.3f}")
    print(f"games per CPU second: {stats['games_per_cpu_second']}")
    print(f"mean game length:     {stats['mean_length']} decisions")
    print(f"exact bids:           {100 * stats['exact_bid_rate']:.1f}%")
    for p in range(stats["players"]):
        print(f"P{p + 1}: mean score {stats['mean_score'][p]:.2f}, wins {100 * stats['seat_wins'][p]:.1f}%")


if __name__ == "__main__":
    sys.exit(main())
