"""Numba kernels of the fnTBL-style learner: rule keys as int64, good/bad counts, incremental rescoring.

A rule (template t, from-tag f, to-tag g, argument code a) has the key
`base[t] + (f * T + g) * R[t] + a`, where `a` packs one value per condition in mixed radix
(`mult`). Keys therefore sort by (template order, from, to, args lexicographically), which is the
last tie-breaker. The to-independent part of a rule ("condition key") uses g = f, a slot no real
rule occupies; it indexes the *bad* counts, which do not depend on the to-tag.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict


@njit(cache=True)
def _values(q, t, tags, toks, lo, hi, ncond, feat, noff, off, vals, nv):  # type: ignore[no-untyped-def]
    """Distinct values of each condition of template t around q; False if one has no in-range position."""
    for c in range(ncond[t]):
        n = 0
        for j in range(noff[t, c]):
            p = q + off[t, c, j]
            if p < lo[q] or p >= hi[q]:
                continue
            v = tags[p] if feat[t, c] == 0 else toks[p]
            dup = False
            for k in range(n):
                if vals[c, k] == v:
                    dup = True
                    break
            if not dup:
                vals[c, n] = v
                n += 1
        if n == 0:
            return False
        nv[c] = n
    return True


@njit(cache=True)
def _codes(t, ncond, mult, vals, nv, idx, out):  # type: ignore[no-untyped-def]
    """Argument codes of every combination of the conditions' values (an odometer over vals)."""
    nc = ncond[t]
    for c in range(nc):
        idx[c] = 0
    m = 0
    while True:
        a = 0
        for c in range(nc):
            a += vals[c, idx[c]] * mult[t, c]
        out[m] = a
        m += 1
        c = nc - 1
        while c >= 0:
            idx[c] += 1
            if idx[c] < nv[c]:
                break
            idx[c] = 0
            c -= 1
        if c < 0:
            return m


@njit(cache=True)
def _grow(a):  # type: ignore[no-untyped-def]
    return np.concatenate((a, np.zeros_like(a)))


@njit(cache=True)
def _touch(q, sign, mask, tags, gold, toks, lo, hi, T, ncond, feat, noff, off, mult, R,  # type: ignore[no-untyped-def]
           base, slot_of, cid_of, good, slot_cid, slot_key, badc, counts, vals, nv, idx, buf):
    """Add (sign=+1) or remove (-1) position q's contribution to the rules of the templates in `mask`.

    An error at q is a *good* for the rule (t, tags[q], gold[q], a); a correct tag at q is a *bad*
    for every rule (t, tags[q], *, a). Rules are proposed only here, i.e. only where they fix an error.
    """
    f = tags[q]
    g = gold[q]
    for t in range(ncond.shape[0]):
        if t < 64 and not (mask >> np.uint64(t)) & np.uint64(1):
            continue
        if not _values(q, t, tags, toks, lo, hi, ncond, feat, noff, off, vals, nv):
            continue
        m = _codes(t, ncond, mult, vals, nv, idx, buf)
        for k in range(m):
            a = buf[k]
            ckey = base[t] + (f * T + f) * R[t] + a
            if ckey in cid_of:
                cid = cid_of[ckey]
            else:
                cid = counts[1]
                cid_of[ckey] = cid
                counts[1] += 1
                if cid >= badc.shape[0]:
                    badc = _grow(badc)
            if f == g:
                badc[cid] += sign
                continue
            key = base[t] + (f * T + g) * R[t] + a
            if key in slot_of:
                s = slot_of[key]
            else:
                s = counts[0]
                slot_of[key] = s
                counts[0] += 1
                if s >= good.shape[0]:
                    good = _grow(good)
                    slot_cid = _grow(slot_cid)
                    slot_key = _grow(slot_key)
                slot_cid[s] = cid
                slot_key[s] = key
            good[s] += sign
    return good, slot_cid, slot_key, badc


@njit(cache=True)
def _applies(q, tags, toks, lo, hi, nc, feat_c, noff_c, off_c, args):  # type: ignore[no-untyped-def]
    """Whether every condition of a rule holds at q (one of its offsets in range with the rule's value)."""
    for c in range(nc):
        hit = False
        for j in range(noff_c[c]):
            p = q + off_c[c, j]
            if p < lo[q] or p >= hi[q]:
                continue
            v = tags[p] if feat_c[c] == 0 else toks[p]
            if v == args[c]:
                hit = True
                break
        if not hit:
            return False
    return True


@njit(cache=True)
def rule_positions(tags, toks, lo, hi, f, nc, feat_c, noff_c, off_c, args):  # type: ignore[no-untyped-def]
    """Positions where a rule applies, all judged on the tags as they are now (simultaneous application)."""
    out = np.empty(tags.shape[0], np.int64)
    n = 0
    for q in range(tags.shape[0]):
        if tags[q] == f and _applies(q, tags, toks, lo, hi, nc, feat_c, noff_c, off_c, args):
            out[n] = q
            n += 1
    return out[:n]


@njit(cache=True)
def rule_positions_among(cand, tags, toks, lo, hi, f, nc, feat_c, noff_c, off_c, args):  # type: ignore[no-untyped-def]
    """`rule_positions` restricted to the candidate positions `cand` (in range; any order)."""
    out = np.empty(cand.shape[0], np.int64)
    n = 0
    for i in range(cand.shape[0]):
        q = cand[i]
        if tags[q] == f and _applies(q, tags, toks, lo, hi, nc, feat_c, noff_c, off_c, args):
            out[n] = q
            n += 1
    return out[:n]


def new_tables():  # type: ignore[no-untyped-def]
    """Empty rule tables for score_positions and learn_rules: slot_of (rule key -> slot), cid_of (condition key
    -> id), good, slot_cid, slot_key, badc (grown as rules appear) and counts (slots, condition ids)."""
    return (Dict.empty(key_type=types.int64, value_type=types.int64),
            Dict.empty(key_type=types.int64, value_type=types.int64),
            np.zeros(1024, np.int64), np.zeros(1024, np.int64), np.zeros(1024, np.int64), np.zeros(1024, np.int64),
            np.zeros(2, np.int64))


@njit(cache=True)
def score_positions(q0, q1, tags, gold, toks, lo, hi, T, ncond, feat, noff, off, mult, R, base,  # type: ignore[no-untyped-def]
                    tables):
    """Add positions q0..q1-1 to the rule tables (the initial scores; the learner calls it in chunks to
    report progress); returns the tables (their arrays may have grown)."""
    slot_of, cid_of, good, slot_cid, slot_key, badc, counts = tables
    maxc = feat.shape[1]
    maxo = off.shape[2]
    vals = np.zeros((maxc, maxo), np.int64)
    nv = np.zeros(maxc, np.int64)
    idx = np.zeros(maxc, np.int64)
    buf = np.zeros(maxo ** maxc, np.int64)
    every = ~np.uint64(0)
    for q in range(q0, q1):
        good, slot_cid, slot_key, badc = _touch(
            q, 1, every, tags, gold, toks, lo, hi, T, ncond, feat, noff, off, mult, R, base, slot_of,
            cid_of, good, slot_cid, slot_key, badc, counts, vals, nv, idx, buf)
    return slot_of, cid_of, good, slot_cid, slot_key, badc, counts


@njit(cache=True, nogil=True)  # arrays and typed dicts only: the progress bar redraws meanwhile
def learn_rules(tags, gold, toks, lo, hi, T, ncond, feat, noff, off, mult, radix, R, base,  # type: ignore[no-untyped-def]
                window, delta_mask, min_score, max_rules, tables, mark, aff):
    """Up to `max_rules` more steps of greedy TBL on `tags` (modified in place) over scored `tables`; returns
    the chosen rules' keys, goods, bads and args, and the tables. Fewer rules than asked: learning is over.

    Best rule: highest good - bad, then fewest bad, then smallest key. After a rule is applied only
    the positions within `window` of a changed tag are rescored (removed with the old tags, re-added
    with the new ones), and there only the templates that read a changed tag (all templates at a
    changed position itself), so each step costs O(changes x window x templates), not O(corpus).
    `delta_mask[d + window]` = bit set of the templates with a tag condition at offset d (64 at most
    are masked; templates beyond the 64th are always rescored). `mark` (zeros) and `aff` are scratch arrays
    of one entry per position, kept by the caller across calls.
    """
    slot_of, cid_of, good, slot_cid, slot_key, badc, counts = tables
    K = ncond.shape[0]
    maxc = feat.shape[1]
    maxo = off.shape[2]
    vals = np.zeros((maxc, maxo), np.int64)
    nv = np.zeros(maxc, np.int64)
    idx = np.zeros(maxc, np.int64)
    buf = np.zeros(maxo ** maxc, np.int64)
    keys = []
    goods = []
    bads = []
    argl = []
    args = np.zeros(maxc, np.int64)
    while len(keys) < max_rules:
        best = -1
        bs = 0
        bb = 0
        bk = 0
        for s in range(counts[0]):
            gd = good[s]
            if gd <= 0:
                continue
            b = badc[slot_cid[s]]
            sc = gd - b
            if best < 0 or sc > bs or (sc == bs and (b < bb or (b == bb and slot_key[s] < bk))):
                best = s
                bs = sc
                bb = b
                bk = slot_key[s]
        if best < 0 or bs < min_score:
            break
        keys.append(bk)
        goods.append(bs + bb)
        bads.append(bb)
        t = K - 1
        while base[t] > bk:
            t -= 1
        rem = bk - base[t]
        a = rem % R[t]
        f = (rem // R[t]) // T
        g = (rem // R[t]) % T
        for c in range(ncond[t]):
            args[c] = (a // mult[t, c]) % radix[t, c]
        changed = rule_positions(tags, toks, lo, hi, f, ncond[t], feat[t], noff[t], off[t], args)
        na = 0
        for i in range(changed.shape[0]):
            p = changed[i]
            for q in range(max(lo[p], p - window), min(hi[p], p + window + 1)):
                m = delta_mask[p - q + window]
                if m != 0 and mark[q] == 0:
                    aff[na] = q
                    na += 1
                mark[q] |= m
        for i in range(na):
            good, slot_cid, slot_key, badc = _touch(
                aff[i], -1, mark[aff[i]], tags, gold, toks, lo, hi, T, ncond, feat, noff, off, mult, R, base, slot_of,
                cid_of, good, slot_cid, slot_key, badc, counts, vals, nv, idx, buf)
        for i in range(changed.shape[0]):
            tags[changed[i]] = g
        for i in range(na):
            good, slot_cid, slot_key, badc = _touch(
                aff[i], 1, mark[aff[i]], tags, gold, toks, lo, hi, T, ncond, feat, noff, off, mult, R, base, slot_of,
                cid_of, good, slot_cid, slot_key, badc, counts, vals, nv, idx, buf)
            mark[aff[i]] = 0
        argl.append(args.copy())
    return keys, goods, bads, argl, (slot_of, cid_of, good, slot_cid, slot_key, badc, counts)
