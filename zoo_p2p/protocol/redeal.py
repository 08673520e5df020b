"""The re-deal of the hidden part of a game (docs/design/PLAY-ON.md; not wired into Session yet).

When a seat is claimed against and the others play on, nobody can reveal through its secret
tables again. What nobody has seen is re-dealt by the seats that remain:

- the **hidden part** (`HiddenPart`): the covered slots (bottom cards never uncovered), the
  unrevealed tokens (as many), and for each value 0–3 whose mutant is unfound its copies whose
  mutant flag was never published;
- each remaining seat derives fresh tables over exactly that part from its seed (§4.2's
  derivation under the domain `DOMAIN_REDEAL_PERM`, through a key bound to the claim entry),
  and commits to them (`DOMAIN_REDEAL_COMMIT`, bound to the game, the claim and the hidden part);
- the tables are composed in seat order; `apply_redeal` gives the new complete deal, which
  agrees with everything public.

Everything here is pure: no I/O, no clock, no randomness but what the caller's seeds carry.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from zoo_p2p.errors import ZooError
from zoo_p2p.protocol.crypto import hmac_sha256, private_key_from_bytes, public_key_bytes, sha256
from zoo_p2p.protocol.deal import (
    COMMIT_SIZE,
    DEAL_TABLE,
    MUTANT_VALUES,
    N_COPIES,
    N_SLOTS,
    SALT_SIZE,
    compose,
    game_key,
    permutation_from_stream,
)
from zoo_p2p.rules import KnownDeal, State, Variant
from zoo_p2p.rules.board import N_SQUARES

DOMAIN_REDEAL_KEY = b"zoo-p2p/v1/redeal-key\x00"
DOMAIN_REDEAL_PERM = b"zoo-p2p/v1/redeal-perm\x00"
DOMAIN_REDEAL_SALT = b"zoo-p2p/v1/redeal-salt\x00"
DOMAIN_REDEAL_COMMIT = b"zoo-p2p/v1/redeal-commit\x00"
DOMAIN_REDEAL_HIDDEN = b"zoo-p2p/v1/redeal-hidden\x00"
DOMAIN_CLAIMED_STAND_IN = b"zoo-p2p/v1/claimed-stand-in\x00"

CLAIM_HASH_SIZE = 32


class RedealError(ZooError, ValueError):
    """A public record, a table or a commitment that does not fit the hidden part."""


@dataclass(frozen=True, slots=True)
class HiddenPart:
    """What nobody has seen: the re-deal's index sets, each in increasing order.

    ``covered``: slots ``25 + q`` whose bottom card was never revealed; ``tokens``: the tokens
    never revealed (as many as ``covered``); ``copies``: ``(v, copies)`` for each value ``v`` in
    0..3 whose mutant is unfound, the copies whose mutant flag was never published (empty in the
    General variant). Table ids are those of §4.1: 0 for the deal, ``1 + v`` for value ``v``.
    """

    covered: tuple[int, ...]
    tokens: tuple[int, ...]
    copies: tuple[tuple[int, tuple[int, ...]], ...]

    def table_ids(self) -> tuple[int, ...]:
        """The tables a seat commits to, in order: 0, then ``1 + v`` for each unfound ``v``."""
        return (DEAL_TABLE, *(1 + v for v, _ in self.copies))

    def size(self, table: int) -> int:
        """The number of entries of re-deal table ``table``."""
        if table == DEAL_TABLE:
            return len(self.covered)
        for v, cs in self.copies:
            if table == 1 + v:
                return len(cs)
        raise RedealError(f"the hidden part has no table {table} (its mutant is found)")

    def copies_of(self, value: int) -> tuple[int, ...]:
        """The unturned copies of ``value`` (its mutant unfound)."""
        for v, cs in self.copies:
            if v == value:
                return cs
        raise RedealError(f"the mutant of value {value} is not hidden")

    def encode(self) -> bytes:
        """``u8(m) ‖ covered ‖ tokens ‖ u8(w) ‖ (u8(v) ‖ u8(k_v) ‖ copies)*``, one byte each."""
        out = bytearray([len(self.covered), *self.covered, *self.tokens, len(self.copies)])
        for v, cs in self.copies:
            out += bytes([v, len(cs), *cs])
        return bytes(out)

    def digest(self, game_id: bytes) -> bytes:
        """``H(DOMAIN_REDEAL_HIDDEN ‖ game_id ‖ encode())``, which every commitment names."""
        return sha256(DOMAIN_REDEAL_HIDDEN + game_id + self.encode())

    def slot_index(self, slot: int) -> int:
        """The deal-table index of a covered slot (the input of its reveal chain)."""
        try:
            return self.covered.index(slot)
        except ValueError:
            raise RedealError(f"slot {slot} is not covered") from None

    def copy_index(self, value: int, copy: int) -> int:
        """The mutant-table index of an unturned copy (the input of its reveal chain)."""
        try:
            return self.copies_of(value).index(copy)
        except ValueError:
            raise RedealError(f"copy {copy} of value {value} was already turned over") from None


def hidden_part(
    known_tokens: Mapping[int, int],
    mutant_reveals: Mapping[tuple[int, int], bool],
    variant: Variant,
) -> HiddenPart:
    """The hidden part given the public record (``Session.known_tokens``, ``mutant_reveals``).

    ``known_tokens`` maps every revealed slot to its token; ``mutant_reveals`` maps
    ``(value, copy)`` to the published flag of each card turned over. Raises `RedealError` with
    the reason when the record is not one a game can produce.
    """
    seen: dict[int, int] = {}
    for slot, tok in known_tokens.items():
        if not 0 <= slot < N_SLOTS:
            raise RedealError(f"slot {slot} is outside 0..49")
        if not 0 <= tok < N_SLOTS:
            raise RedealError(f"slot {slot} holds token {tok}, outside 0..49")
        if tok in seen:
            raise RedealError(f"token {tok} revealed at slots {seen[tok]} and {slot}")
        seen[tok] = slot
    missing_top = [s for s in range(N_SQUARES) if s not in known_tokens]
    if missing_top:
        raise RedealError(f"top slot {missing_top[0]} is not revealed: the opening is incomplete")
    covered = tuple(s for s in range(N_SQUARES, N_SLOTS) if s not in known_tokens)
    tokens = tuple(t for t in range(N_SLOTS) if t not in seen)
    general = variant is Variant.GENERAL
    found: set[int] = set()
    for (v, c), flag in mutant_reveals.items():
        if general:
            raise RedealError("the General variant turns no card over")
        if v not in MUTANT_VALUES or not 0 <= c < N_COPIES:
            raise RedealError(f"no card of value {v} copy {c} can hide a mutant")
        if 10 * v + c not in seen:
            raise RedealError(f"copy {c} of value {v} was turned over but never revealed")
        if flag:
            if v in found:
                raise RedealError(f"two mutants of value {v}")
            found.add(v)
    copies: list[tuple[int, tuple[int, ...]]] = []
    if not general:
        for v in MUTANT_VALUES:
            if v in found:
                continue
            cs = tuple(c for c in range(N_COPIES) if (v, c) not in mutant_reveals)
            if not cs:
                raise RedealError(f"every copy of value {v} turned over plain: no mutant left")
            copies.append((v, cs))
    return HiddenPart(covered, tokens, tuple(copies))


def state_mismatch(hidden: HiddenPart, state: State) -> str | None:
    """Why ``hidden`` does not fit the rules engine's public ``state``, or None if it does.

    The covered slots must be the face-down squares' bottoms (a pending reveal's included) and
    the hidden mutants the values whose mutant the engine has not found.
    """
    want = tuple(N_SQUARES + q for q in state.face_down())
    if hidden.covered != want:
        return f"covered slots {list(hidden.covered)} but the board has {list(want)} face down"
    hidden_values = {v for v, _ in hidden.copies}
    if state.variant is Variant.STANDARD:
        engine = set(MUTANT_VALUES) - state.mutants_found
        if hidden_values != engine:
            have, say = sorted(hidden_values), sorted(engine)
            return f"mutants hidden for values {have}, the engine says {say}"
    return None


# --- one seat's re-deal tables ------------------------------------------------------------


def redeal_key(seed: bytes, game_id: bytes, claim_hash: bytes) -> bytes:
    """``HMAC(key_k, DOMAIN_REDEAL_KEY ‖ claim_hash)`` with ``key_k`` the per-game key (§4.1)."""
    if len(claim_hash) != CLAIM_HASH_SIZE:
        raise RedealError("the claim hash is not 32 bytes")
    return hmac_sha256(game_key(seed, game_id), DOMAIN_REDEAL_KEY + claim_hash)


def derive_redeal_permutation(key: bytes, table: int, n: int) -> list[int]:
    """§4.2's derivation with the prefix ``DOMAIN_REDEAL_PERM ‖ u8(table)`` over ``0..n-1``."""
    return permutation_from_stream(key, DOMAIN_REDEAL_PERM + bytes([table]), n)


def derive_redeal_salt(key: bytes, table: int, index: int) -> bytes:
    """``HMAC(redeal_key, DOMAIN_REDEAL_SALT ‖ u8(table) ‖ u8(index))``."""
    return hmac_sha256(key, DOMAIN_REDEAL_SALT + bytes((table, index)))


def redeal_commitment(
    game_id: bytes,
    claim_hash: bytes,
    hidden_digest: bytes,
    seat: int,
    table: int,
    index: int,
    value: int,
    salt: bytes,
) -> bytes:
    """``H(DOMAIN_REDEAL_COMMIT ‖ game_id ‖ claim_hash ‖ hidden_digest ‖ u8(seat) ‖ u8(table)
    ‖ u8(index) ‖ u8(value) ‖ salt)``."""
    return sha256(
        DOMAIN_REDEAL_COMMIT
        + game_id
        + claim_hash
        + hidden_digest
        + bytes((seat, table, index, value))
        + salt
    )


@dataclass(frozen=True, slots=True)
class RedealTables:
    """One seat's re-deal tables and salts, aligned with ``hidden.table_ids()``."""

    hidden: HiddenPart
    tables: tuple[tuple[int, ...], ...]
    salts: tuple[tuple[bytes, ...], ...]

    @classmethod
    def from_seed(
        cls,
        seed: bytes,
        game_id: bytes,
        claim_hash: bytes,
        hidden: HiddenPart,
        *,
        with_salts: bool = True,
    ) -> RedealTables:
        """Derive every re-deal table (and salt) of a seat from its game seed."""
        key = redeal_key(seed, game_id, claim_hash)
        ids = hidden.table_ids()
        tables = tuple(tuple(derive_redeal_permutation(key, t, hidden.size(t))) for t in ids)
        salts: tuple[tuple[bytes, ...], ...] = ()
        if with_salts:
            salts = tuple(
                tuple(derive_redeal_salt(key, t, i) for i in range(hidden.size(t))) for t in ids
            )
        return cls(hidden, tables, salts)

    def table(self, table_id: int) -> tuple[int, ...]:
        """The table with this id (0, or ``1 + v``)."""
        return self.tables[self.hidden.table_ids().index(table_id)]

    def salt(self, table_id: int, index: int) -> bytes:
        """The salt of one entry."""
        return self.salts[self.hidden.table_ids().index(table_id)][index]

    def commitments(self, game_id: bytes, claim_hash: bytes, seat: int) -> list[bytes]:
        """Per table (in ``table_ids`` order), the concatenated 32-byte commitments."""
        if not self.salts:
            raise RedealError("these tables were derived without salts")
        hd = self.hidden.digest(game_id)
        out = []
        for t, table, salts in zip(self.hidden.table_ids(), self.tables, self.salts, strict=True):
            out.append(
                b"".join(
                    redeal_commitment(game_id, claim_hash, hd, seat, t, i, y, s)
                    for i, (y, s) in enumerate(zip(table, salts, strict=True))
                )
            )
        return out

    def link(self, table_id: int, index: int) -> list[Any]:
        """The reveal link ``[y, salt]`` this seat publishes for input ``index`` of a table."""
        return [self.table(table_id)[index], self.salt(table_id, index)]


# --- checks ------------------------------------------------------------------------------


def table_problem(hidden: HiddenPart, tables: Sequence[Sequence[int]]) -> str | None:
    """Why ``tables`` are not re-deal tables of ``hidden`` (one permutation per table id)."""
    ids = hidden.table_ids()
    if len(tables) != len(ids):
        return f"{len(tables)} tables, the hidden part has {len(ids)} (ids {list(ids)})"
    for t, table in zip(ids, tables, strict=True):
        n = hidden.size(t)
        what = "the covered slots" if t == DEAL_TABLE else f"the unturned copies of value {t - 1}"
        if len(table) != n:
            return f"table {t} has {len(table)} entries, {what} are {n}"
        owner: dict[int, int] = {}
        for i, y in enumerate(table):
            if type(y) is not int or not 0 <= y < n:
                return f"table {t} maps {i} to {y!r}, outside 0..{n - 1}: not a permutation"
            if y in owner:
                return f"table {t} maps {owner[y]} and {i} to {y}: not a permutation"
            owner[y] = i
    return None


def commitment_problem(
    hidden: HiddenPart,
    game_id: bytes,
    claim_hash: bytes,
    seat: int,
    blobs: Sequence[bytes],
    seed: bytes,
) -> str | None:
    """Why the committed ``blobs`` are not the re-deal commitments ``seed`` gives, or None.

    The shape is checked first (one blob per table id, ``size · 32`` bytes each), then every
    commitment against the tables and salts derived from the opened seed; the first differing
    table and index is named.
    """
    ids = hidden.table_ids()
    if len(blobs) != len(ids):
        return f"{len(blobs)} committed tables, the hidden part has {len(ids)}"
    for t, blob in zip(ids, blobs, strict=True):
        if len(blob) != hidden.size(t) * COMMIT_SIZE:
            return f"committed table {t} is {len(blob)} bytes, not {hidden.size(t)} × 32"
    derived = RedealTables.from_seed(seed, game_id, claim_hash, hidden).commitments(
        game_id, claim_hash, seat
    )
    for t, got, want in zip(ids, blobs, derived, strict=True):
        if got != want:
            bad = next(
                i
                for i in range(hidden.size(t))
                if got[i * COMMIT_SIZE : (i + 1) * COMMIT_SIZE]
                != want[i * COMMIT_SIZE : (i + 1) * COMMIT_SIZE]
            )
            return f"the seed does not give the re-deal commitment of table {t} index {bad}"
    return None


def link_problem(
    hidden: HiddenPart,
    game_id: bytes,
    claim_hash: bytes,
    seat: int,
    blobs: Sequence[bytes],
    table: int,
    index: int,
    link: Sequence[Any],
) -> str | None:
    """Why a re-deal reveal link ``[y, salt]`` of ``seat`` at input ``index`` does not verify."""
    ids = hidden.table_ids()
    if table not in ids:
        return f"no re-deal table {table}"
    n = hidden.size(table)
    if not 0 <= index < n:
        return f"index {index} is outside table {table}'s 0..{n - 1}"
    if not (
        len(link) == 2
        and type(link[0]) is int
        and isinstance(link[1], bytes)
        and len(link[1]) == SALT_SIZE
    ):
        return "a re-deal link is not [value, salt]"
    y, salt = link
    blob = blobs[ids.index(table)]
    want = blob[index * COMMIT_SIZE : (index + 1) * COMMIT_SIZE]
    if not 0 <= y <= 255:
        return f"re-deal table {table} maps {index} to {y}: outside 0..255"
    got = redeal_commitment(
        game_id, claim_hash, hidden.digest(game_id), seat, table, index, y, salt
    )
    if got != want:
        return f"re-deal link of table {table} index {index} does not match its commitment"
    if y >= n:
        return f"re-deal table {table} maps {index} to {y}: not a permutation of 0..{n - 1}"
    return None


# --- composition and the new deal --------------------------------------------------------


def compose_redeal(
    hidden: HiddenPart, per_seat: Sequence[Sequence[Sequence[int]]]
) -> tuple[tuple[int, ...], ...]:
    """Compose the remaining seats' tables in seat order (the first seat's applied first).

    ``per_seat[j]`` is the j-th remaining seat's tables in ``hidden.table_ids()`` order. Raises
    `RedealError` naming the position of the first seat whose tables are not permutations of
    the hidden part.
    """
    if not per_seat:
        raise RedealError("a re-deal needs at least one seat")
    for j, tables in enumerate(per_seat):
        problem = table_problem(hidden, tables)
        if problem is not None:
            raise RedealError(f"re-deal seat #{j}: {problem}")
    out = []
    for k, t in enumerate(hidden.table_ids()):
        n = hidden.size(t)
        out.append(tuple(compose([tables[k] for tables in per_seat]) if n else ()))
    return tuple(out)


def apply_redeal(
    hidden: HiddenPart,
    composed: Sequence[Sequence[int]],
    known_tokens: Mapping[int, int],
    mutant_reveals: Mapping[tuple[int, int], bool],
    variant: Variant,
) -> KnownDeal:
    """The complete deal after the re-deal: every revealed slot and flag as public, the rest new.

    Covered slot ``covered[i]`` holds token ``tokens[R(i)]``; for each hidden value ``v``, copy
    ``copies_v[i]`` hides the mutant iff ``M_v(i) = 0``; found mutants stay where they were.
    """
    problem = table_problem(hidden, composed)
    if problem is not None:
        raise RedealError(f"composed re-deal: {problem}")
    if hidden_part(known_tokens, mutant_reveals, variant) != hidden:
        raise RedealError("the public record does not give this hidden part")
    slots = [-1] * N_SLOTS
    for slot, tok in known_tokens.items():
        slots[slot] = tok
    for i, slot in enumerate(hidden.covered):
        slots[slot] = hidden.tokens[composed[0][i]]
    mutants: tuple[int, ...] = ()
    if variant is Variant.STANDARD:
        found = {v: c for (v, c), flag in mutant_reveals.items() if flag}
        by_value = dict(zip((v for v, _ in hidden.copies), composed[1:], strict=True))
        picked = []
        for v in MUTANT_VALUES:
            if v in found:
                picked.append(found[v])
            else:
                picked.append(hidden.copies_of(v)[list(by_value[v]).index(0)])
        mutants = tuple(picked)
    return KnownDeal.from_tokens(slots, mutants, variant)


def reveal_chain(per_seat: Sequence[RedealTables], table: int, index: int) -> list[int]:
    """The link values of one reveal chain: ``y_0 = r_0[index]``, ``y_j = r_j[y_j-1]``."""
    ys = []
    x = index
    for tables in per_seat:
        x = tables.table(table)[x]
        ys.append(x)
    return ys


# --- the claimed seat's stand-in ------------------------------------------------------------


def claimed_stand_in_seed(game_id: bytes, seat: int, head: bytes) -> bytes:
    """``H(DOMAIN_CLAIMED_STAND_IN ‖ game_id ‖ u8(seat) ‖ head)``: a public Ed25519 seed, with
    ``head`` the hash of the entry before the claimed position (the head the votes name), so
    the key is known before the claim entry, which it signs (PROTOCOL.md §10.7.6)."""
    if len(head) != CLAIM_HASH_SIZE:
        raise RedealError("the head hash is not 32 bytes")
    return sha256(DOMAIN_CLAIMED_STAND_IN + game_id + bytes([seat]) + head)


def claimed_stand_in_private_key(game_id: bytes, seat: int, claim_hash: bytes) -> Ed25519PrivateKey:
    """The (public) signing key of a claimed seat's stand-in."""
    return private_key_from_bytes(claimed_stand_in_seed(game_id, seat, claim_hash))


def claimed_stand_in_public_key(game_id: bytes, seat: int, claim_hash: bytes) -> bytes:
    """The RFC 8032 public key of a claimed seat's stand-in."""
    return public_key_bytes(claimed_stand_in_private_key(game_id, seat, claim_hash))


# --- a rules-engine game as a public record (simulations, vectors) ---------------------------


def public_record(
    deal: KnownDeal, state: State
) -> tuple[dict[int, int], dict[tuple[int, int], bool]]:
    """What a session would have revealed of ``deal`` in the game that reached ``state``.

    Every top slot; the bottom slot of each square no longer face down; and the flag of every
    captured card of a value 0–3 (a found value's captured copies are all listed: only the found
    flag matters). ``state`` must have been played on ``deal`` with its oracle, no reveal pending.
    """
    if state.needs is not None:
        raise RedealError("the state waits for a reveal")
    known = {s: deal.slot_tokens[s] for s in range(N_SQUARES)}
    face_down = set(state.face_down())
    captured: list[int] = []
    for q in range(N_SQUARES):
        if q in face_down:
            continue
        known[N_SQUARES + q] = deal.slot_tokens[N_SQUARES + q]
        captured.append(deal.slot_tokens[q])
        # the bottom card is gone iff nothing lies under the top and the top is not a Zoo card
        # (a character that stepped off a bottom card leaves it on top, uncaptured)
        if state.under(q).kind == "empty" and state.top(q).kind != "zoo":
            captured.append(deal.slot_tokens[N_SQUARES + q])
    reveals: dict[tuple[int, int], bool] = {}
    if deal.variant is Variant.STANDARD:
        for tok in captured:
            v, c = divmod(tok, 10)
            if v in MUTANT_VALUES:
                reveals[(v, c)] = deal.is_mutant(tok)
    return known, reveals


# --- one re-deal round as a session keeps it (§10.7) ----------------------------------------


@dataclass
class RedealRound:
    """A re-deal round started by a play-on claim: what it is over, who deals, what they committed.

    ``claim_seq``/``claim_hash``: the claim entry; ``claimed``: the seat it put out;
    ``dealers``: the live seats after the claim, in seat order (the chains that follow compose
    only them); ``known``/``reveals``: the public record at the claim (the hidden part's
    source); ``restart``: the questions of the reveal round the claim interrupted (asked again
    of the re-deal), or None; ``move_seat``: else the seat whose move floor comes after the
    round. ``commits[seat]``: the committed blobs (``hidden.table_ids()`` order);
    ``commit_seq[seat]``: the index of its `redeal` entry; ``images[seat][k]``: output ->
    (input, seq) of every link revealed of the k-th table of ``table_ids``; ``tables[seat]``:
    the derived tables of the seats whose seed this peer knows (its own, a resigned dealer's).
    """

    claim_seq: int
    claimed: int
    claim_hash: bytes
    hidden: HiddenPart
    digest: bytes
    dealers: tuple[int, ...]
    known: dict[int, int]
    reveals: dict[tuple[int, int], bool]
    restart: list[tuple[int, int]] | None
    move_seat: int
    commits: dict[int, list[bytes]]
    commit_seq: dict[int, int]
    images: dict[int, list[dict[int, tuple[int, int]]]]
    tables: dict[int, RedealTables]

    @property
    def complete(self) -> bool:
        """Every dealer has committed."""
        return len(self.commits) == len(self.dealers)

    def next_dealer(self) -> int | None:
        """The dealer whose `redeal` entry comes next, or None once the round is complete."""
        return next((d for d in self.dealers if d not in self.commits), None)

    def input_of(self, table: int, index: int) -> int:
        """The chain input of a question (§10.7): a covered slot's or an unturned copy's index."""
        if table == DEAL_TABLE:
            return self.hidden.slot_index(index)
        return self.hidden.copy_index(table - 1, index)

    def shape_problem(self, body: Any) -> str | None:
        """Why a `redeal` body is not one of this round's shape (§10.7), or None."""
        ids = self.hidden.table_ids()
        if body[0] != self.claim_hash:
            return "its claim hash is not the hash of the claim entry that started this round"
        if len(body[1]) != len(ids):
            return f"{len(body[1])} tables, the hidden part has {len(ids)} (ids {list(ids)})"
        for t, blob in zip(ids, body[1], strict=True):
            if len(blob) != self.hidden.size(t) * COMMIT_SIZE:
                n = self.hidden.size(t)
                return f"table {t} is {len(blob)} bytes, the hidden part gives {n} × 32"
        return None
