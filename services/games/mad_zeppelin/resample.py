"""Resampling the hidden state from one seat's view (for search bots that may not see the full state).

:func:`resample` builds a complete :class:`State` whose view for ``seat`` equals the view it was given.
What the view shows is copied (dice, Safe, fronts, Journey cards placed, discard, Gold, the Traitors
played, bans, Captain's watches, the sequence, the seat's own hand, Traitors and knowledge); what it
hides is drawn at random from what is unaccounted for:

- **Cargo.** Every kind has its printed number of cards. Those not in the seat's hand, in front of a
  player or in the discard are the pool; each other hand gets its shown count from the pool, the
  removed pile its count, and the Hold the rest together with the Journey cards not yet placed, in
  random order. The top of the Hold the seat saw as Geologist (knowledge ``hold_top``) is put on top
  in that order (when the pool still holds those cards).
- **Traitors.** The 14 less the seat's own and those played this turn are dealt to the other players'
  unplayed Traitors (their shown counts), the airsick and the unchosen/draft pool. What the seat saw is
  respected: the draft pool it is drafting from, the airsick and unchosen Traitors it looked at (as
  leader or Clairvoyant: split between the two at random) and another player's Traitors it looked at
  (less those he has played since). The player whose turn it is to play gets at least one Traitor he
  may play (the true state has one, or he would have been skipped).

The view carries no history, so facts only an event showed (a skipped player's Traitors, a card known
to have changed hands) are not used. A ban exempts the seat itself when its view shows the named
Traitor as playable, and no other player but as said above (the Taster's exemption of others is not
shown). Other seats' knowledge is empty.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from services.games.mad_zeppelin.data import ALL_CARDS, JOURNEY, JOURNEYS, TRAITOR_KEYS
from services.games.mad_zeppelin.state import Note, Phase, Play, Player, State
from services.games.mad_zeppelin.state import Sequence as Seq

RETRIES = 30


def _without(cards: list[str], taken: Sequence[str]) -> list[str] | None:
    """``cards`` less each of ``taken`` once; None if some card is missing."""
    rest = list(cards)
    for card in taken:
        if card not in rest:
            return None
        rest.remove(card)
    return rest


def _cargo(view: Mapping[str, Any], seat: int, notes: Sequence[Note], rng: random.Random
           ) -> tuple[list[tuple[str, ...]], tuple[str, ...], tuple[str, ...]]:
    """Hands (the seat's own included), the removed Cargo and the Hold (top first)."""
    players = view["players"]
    known: list[str] = list(view["hand"]) + list(view["discard"])
    for p in players:
        known += p["front"]
    pool = [kind for kind, count in ALL_CARDS.items() if kind != JOURNEY for _ in range(count)]
    rest = _without(pool, known)
    if rest is None:
        raise ValueError("the view does not add up: more cards shown than printed")
    pool = rest
    journeys_left = JOURNEYS - view["journeys"]
    hold_count = view["hold_count"]
    wanted = sum(p["hand_count"] for p in players if p["seat"] != seat) + view["removed_count"]
    if len(pool) != wanted + hold_count - journeys_left:
        raise ValueError(f"the view does not add up: {len(pool)} Cargo cards unaccounted for, "
                         f"{wanted + hold_count - journeys_left} hidden")
    top: list[str] = []
    for kind, _, cards in notes:
        if kind == "hold_top":
            seen = [c for c in cards if c != JOURNEY]
            rest = _without(pool, seen)
            if rest is not None and len(cards) <= hold_count and cards.count(JOURNEY) <= journeys_left:
                pool, top = rest, list(cards)
    rng.shuffle(pool)
    hands: list[tuple[str, ...]] = []
    for p in players:
        if p["seat"] == seat:
            hands.append(tuple(sorted(view["hand"])))
        else:
            count = p["hand_count"]
            hands.append(tuple(sorted(pool[:count])))
            del pool[:count]
    removed = tuple(sorted(pool[: view["removed_count"]]))
    del pool[: view["removed_count"]]
    hold = pool + [JOURNEY] * (journeys_left - top.count(JOURNEY))
    rng.shuffle(hold)
    return hands, removed, tuple(top + hold)


def _traitors(view: Mapping[str, Any], seat: int, notes: Sequence[Note], rng: random.Random
              ) -> tuple[list[tuple[str, ...]], tuple[str, ...], tuple[str, ...], dict[str, int]]:
    """Each player's unplayed Traitors, the airsick, the pool (draft pool, then the unchosen) and the
    seat exempted from each ban that must exempt one."""
    players = view["players"]
    plays = view["plays"]
    mine = [t["traitor"] for t in view["traitors"]]
    played = {p["traitor"] for p in plays}
    free: list[str] = [t for t in TRAITOR_KEYS if t not in played and t not in mine]
    fixed: dict[int, list[str]] = {seat: mine}
    unused: list[str] | None = None
    for kind, of, cards in notes:
        if kind == "traitors" and of >= 0 and of != seat:
            held = [t for t in cards if t not in {p["traitor"] for p in plays if p["seat"] == of}]
            if len(held) == players[of]["unplayed_traitors"] and all(t in free for t in held):
                fixed[of] = held
        elif kind == "unused" and len(cards) == view["airsick_count"] + view["unused_count"]:
            unused = list(cards)
    draft_pool = view["draft_pool"]
    taken = [t for held in fixed.values() for t in held]
    if unused is not None and any(t in taken or t not in free for t in unused):
        unused = None
    base = [t for t in free if t not in taken and (unused is None or t not in unused)
            and (draft_pool is None or t not in draft_pool)]

    banned = set(view["named_unplayable"])
    to_play = view["current_seat"] if view["phase"] == Phase.PLAY and view["current_seat"] != seat else None
    for attempt in range(RETRIES + 1):
        rest = list(base)
        rng.shuffle(rest)
        if attempt == RETRIES and to_play is not None and to_play not in fixed:
            # chance has not given the player to play a Traitor he may play: give him one
            ok = [t for t in rest if t not in banned]
            if ok:
                rest.remove(ok[0])
                rest.insert(0, ok[0])
        held_by: list[tuple[str, ...]] = [()] * len(players)
        order = sorted(range(len(players)), key=lambda s: s != to_play)  # the player to play first
        for s in order:
            if s in fixed:
                held_by[s] = tuple(sorted(fixed[s]))
            else:
                count = players[s]["unplayed_traitors"]
                held_by[s] = tuple(sorted(rest[:count]))
                del rest[:count]
        if to_play is None or any(t not in banned for t in held_by[to_play]):
            break
    exempt: dict[str, int] = {}
    if to_play is not None and all(t in banned for t in held_by[to_play]):
        # he may play one all the same: he was under the Taster's protection when it was named
        exempt = dict.fromkeys(held_by[to_play], to_play)
    if unused is not None:
        unused_cards = list(unused)
        rng.shuffle(unused_cards)
        airsick = unused_cards[: view["airsick_count"]]
        pool = unused_cards[view["airsick_count"]:]
    else:
        airsick = rest[: view["airsick_count"]]
        del rest[: view["airsick_count"]]
        pool = list(draft_pool) if draft_pool is not None else rest[: view["unused_count"]]
    if len(airsick) != view["airsick_count"] or len(pool) != view["unused_count"]:
        raise ValueError("the view does not add up: Traitors unaccounted for")
    return held_by, tuple(sorted(airsick)), tuple(sorted(pool)), exempt


def _sequence(view: Mapping[str, Any]) -> Seq | None:
    seq = view["sequence"]
    if seq is None:
        return None
    throw = 0 if not seq["thrown"] else 1 if seq["throws_left"] else 2
    return Seq(
        seat=seq["seat"],
        searched=seq["searched"],
        ability_used=seq["ability_used"],
        copied=seq["copied_ability_pending"],
        throw=throw,
        arrange=seq["arranging"],
        give=-1 if seq["giving_seat"] is None else seq["giving_seat"],
        steals=tuple(seq["stealing_seats"]),
    )


def _acting_seat(view: Mapping[str, Any]) -> int:
    """``State.seat``: the drafter, the current player, the leader otherwise."""
    if view["current_seat"] is not None:
        return int(view["current_seat"])
    if view["phase"] == Phase.DRAFT and view["awaiting"] is not None:
        return int(view["awaiting"]["seat"])
    return int(view["leader"])


def resample(view: Mapping[str, Any], seat: int, rng: random.Random) -> State:
    """A full state consistent with ``view`` (the view of ``seat``), hidden parts drawn with ``rng``."""
    if view.get("seat") != seat or view.get("hand") is None or view.get("traitors") is None:
        raise ValueError(f"resample needs seat {seat}'s own view")
    players = view["players"]
    n = len(players)
    notes: tuple[Note, ...] = tuple(
        (k["kind"], -1 if k["of"] is None else k["of"], tuple(k["cards"])) for k in view["knowledge"])
    hands, removed, hold = _cargo(view, seat, notes, rng)
    held, airsick, pool, exempt = _traitors(view, seat, notes, rng)
    plays = tuple(Play(p["seat"], p["traitor"], p["identity"]) for p in view["plays"])
    last_play = {p.seat: i for i, p in enumerate(plays)}
    state_players = tuple(
        Player(
            gold=p["gold"],
            hand=hands[s],
            front=tuple(p["front"]),
            traitors=held[s],
            current=last_play.get(s, -1) if p["current"] is not None else -1,
            rerolls=p["rerolls_used"],
        )
        for s, p in enumerate(players)
    )
    own_exempt = {t["traitor"] for t in view["traitors"] if t["playable"]}
    bans = tuple((t, seat if t in own_exempt else exempt.get(t, -1)) for t in view["named_unplayable"])
    outcome = view["outcome"]
    all_notes = tuple(notes if s == seat else () for s in range(n))
    return State(
        seats=n,
        mode=view["mode"],
        target=view["target"],
        phase=Phase(view["phase"]),
        safe=view["safe"],
        hold=hold,
        removed=removed,
        discard=tuple(view["discard"]),
        journeys=view["journeys"],
        players=state_players,
        turn=view["turn"],
        leader=view["leader"],
        round=view["round"],
        seat=_acting_seat(view),
        airsick=airsick,
        pool=pool,
        dice=tuple(view["dice"]),
        plays=plays,
        bans=bans,
        watches=tuple((w["seat"], w["traitor"]) for w in view["captain_watches"]),
        seq=_sequence(view),
        notes=all_notes,
        end_reason=outcome["detail"]["reason"] if outcome else "",
        final_scores=tuple(outcome["scores"]) if outcome else (),
        winners=tuple(outcome["winners"]) if outcome else (),
        draw=bool(outcome["detail"]["draw"]) if outcome else False,
    )


__all__ = ["resample"]
