"""Mad Zeppelin (2-6 players): Traitors throw the Nostria's Cargo overboard for points.

Rules as played (``/work/shared/rules/mad_zeppelin.md`` over the seed text):

Set-up. 100 Cargo cards are shuffled and 30 (2-3 players), 20 (4-5) or 0 (6) removed face down; the 10
Journey cards are shuffled in to form the Hold. The Safe holds 30 Gold. Each player, seat 0 first,
takes 3 Gold and draws a card; a Journey card goes back into the Hold at a random place, pays 1 Gold
and the player draws again. The first leader is random; the leader passes left each game turn.
Option ``mode``: "run" (target 20 points, default) or "long_haul" (30).

Game turn. The 14 Traitors are shuffled: 4 (2-3 players), 2 (4-5) or 1 (6) are airsick, one is
dealt to each player from the leader, the rest are drafted one at a time from the leader round the
table; the leftover are unchosen. The leader then sees the airsick and unchosen Traitors and rolls
three dice (white, black, yellow, green, blue, red): the leader picks a colour for each white die, a
black die is out. Two rounds follow, each from the leader round the table. In a sequence the player
plays a Traitor (if none of his can be played he shows them and is skipped: no Search, no actions),
Searches (1 Gold and 1 card, or the Traitor's Search text; a Journey card is placed face up and pays
1 Gold; an empty Safe pays nothing, an empty Hold gives nothing) and takes up to two actions in any
order: the ability and the throw. Throwing needs the current Traitor's colour on a die that is in,
and costs the card's Gold (Wood/Lead 1, Coal/Ore 2, Steel/Diamonds 3, Gold 4, Strange materials 2),
less 1 for the Guard, less 1 per Alcohol in front, 0 for level 1 with the Machinist; never below 0.
Mysterious crates (small 1, big 2) may be discarded to pay part of it, no change given. Placing an
Alcohol in front is a throw action that needs no colour and costs nothing. Scores: card points,
Strange materials = the player's thrown level-1 cards each, +1 for all four levels in front
(Alcohol counts as level 4). At the end of each game turn, if someone has the target the match ends;
it also ends straight after the Search step that places the tenth Journey card. Most points win,
then fewest Gold; still equal, a draw (all those tied are listed as winners, detail draw=true); if
nobody has the target, nobody wins.

Effects last until their player's next chance to play a Traitor (or the turn's end) unless they say
"until the turn ends" (the Captain's watch, the Doctor's and the Stowaway's bans, the Stowaway's taken
colour and Ability, the Anarchist's black die).

Commands: ``draft`` {traitor}; ``choose_colour`` {die, colour}; ``play_traitor`` {traitor} (the
Search follows by itself); ``use_ability`` {traitor | die | look+seat | seat | nothing, by ability};
``reroll`` {die}; ``throw`` {card, crates}; ``end_sequence``; and the replies others owe mid-sequence:
``steal`` {take} (a Captain), ``give`` {what, card} (the Negotiator's target), ``arrange_hold``
{order} (the Geologist). Traitor keys: captain, councillor, taster, guard, machinist, lookout,
doctor, geologist, anarchist, clairvoyant, negotiator, opportunist, stowaway, shadow. The bodies are
read strictly against ``schemas.py`` (no coercion, unknown fields refused; a field an
ability does not take is refused even as null). A throw's ``crates`` may come in any order, and ``[]``
is the same as leaving it out.

Interpretations (where the texts leave a choice):
- Standing abilities - Councillor, Taster, Guard, Machinist, Opportunist - need no activation: they
  are in force from the moment the Traitor is played until its player's next chance to play. So a
  Captain who named the Councillor or the Taster steals nothing when it is played. The other nine
  abilities are used with the ability action (``use_ability``).
- The Captain's steal happens right after the named Traitor is played, before that player's Search.
  The Captain chooses Gold or a random Cargo card when the victim has both; otherwise what there is
  is taken. Several Captain effects (taken on by the Stowaway or the Shadow) each steal, in the order
  named. A Captain never steals from his own player. Any of the 14 names may be named.
- Protection. The Councillor stops stealing: the Captain's steal and the Negotiator's demand (being
  made to hand over Gold or Cargo counts as stealing). The Taster stops every ability that targets a
  player: the Captain's steal, the Negotiator, the Clairvoyant's look at his Traitors, and a Doctor's
  or Stowaway's ban of a Traitor he holds when it is named (he may still play it). Abilities on the
  dice or the Hold touch nobody.
- The Stowaway's and the Shadow's ability action takes on the colour and Ability; if that Ability is
  one to use, the player may use it at once with a further ``use_ability`` (still the same action);
  throwing or ending the sequence gives it up. Search texts are never taken on. The Shadow takes the
  *current* colour and Ability of the Traitor played just before him (a Stowaway who took the Guard
  passes on the Guard; one who took nothing passes on the Stowaway's own Ability); a Shadow Ability
  taken on by the Stowaway looks before the Stowaway. Nothing to copy: no colour, cannot throw.
- The Lookout's ``use_ability`` names the first die to re-roll; ``reroll`` names a second. Both come
  before the throw; at most two re-rolls per player per game turn.
- The Doctor may name any Traitor, even one of his own player's. The Stowaway names any Traitor not
  yet played this turn (airsick and unchosen ones included).
- The Clairvoyant looking at a player sees all his unplayed Traitors (two if he has not yet played in
  round 1). The Negotiator's target chooses what to give: 1 Gold or any card of his hand (automatic
  when there is one choice only, nothing when he has nothing).
- The Opportunist's two throws are one action, each paid separately; an Alcohol may be one of them.
- Mysterious crates pay only the Gold owed to the Safe for a throw; each crate offered must be needed.
- The Geologist sees min(3, Hold) cards and puts them back in any order (``arrange_hold``); his view
  keeps that knowledge for the turn, less the cards drawn since. The leader's look at the unused
  Traitors and the Clairvoyant's looks are kept in the looker's view for the turn the same way.
- A sequence ends by itself once the ability is used (or standing) and the throw action is over;
  otherwise the player sends ``end_sequence``.
- Three black dice: no Cargo goes overboard, but an Alcohol may still be placed.
- The tenth-Journey end comes after the whole Search step (a Geologist's second card included).
"""

from __future__ import annotations

from .game import GAME

__all__ = ["GAME"]
