"""Deterministic understanding: a question's words -> a QueryFrame, before any retrieval.

The catalog finds the drugs, the router the section, the extractors the patient facts, the scope guard the
questions the app must not answer. No model is involved, so the same words always give the same frame.
"""

from __future__ import annotations

import re
from itertools import pairwise

from duocthu_desktop.qa.understanding import extractors, patient_facts, scope
from duocthu_desktop.qa.understanding.catalog import Catalog
from duocthu_desktop.qa.understanding.frame import QueryFrame
from duocthu_desktop.qa.understanding.lexicon import (
    ADDING_CUES,
    ADR,
    ALREADY_TAKING_CUES,
    CAN_USE_PHRASES,
    CAUSE_PHRASES,
    COADMINISTRATION_CUES,
    CONDITION_FILLER_WORDS,
    CONDITION_TAIL_WORDS,
    CONTRAINDICATED_IN_PHRASES,
    CONTRAINDICATIONS,
    FOLLOW_UP_OPENERS,
    FOLLOW_UP_TAIL_WORDS,
    GENERAL_WORDS,
    GROUP_HEAD_WORDS,
    GROUP_PREPOSITIONS,
    JOINERS,
    MAY_I_CUES,
    NOT_CAUSE_TERMS,
    PARTNER_JOINER_WORDS,
    PARTNER_LEAD_WORDS,
    PARTNER_QUESTION_WORDS,
    RANKING_PHRASES,
    ROUTE_PHRASES,
    TOGETHER_JOINERS,
    TOGETHER_LEADS,
    TWO_DRUG_CUES,
    WHICH_DRUG_PHRASES,
    expand_abbreviations,
)
from duocthu_desktop.qa.understanding.section_asked import (
    DOSING,
    INTERACTION,
    mentions_interaction,
    route_section,
    without_names,
)
from duocthu_desktop.qa.understanding.textmatch import Text, any_of, first_of, has_diacritics, without_terms
from duocthu_desktop.text import fold

_JOINERS = JOINERS


def _alternatives(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(fold(w)) for w in sorted(words, key=len, reverse=True))


_TOGETHER = re.compile(r"^\s*(?:(?:" + _alternatives(TOGETHER_LEADS) + r")\s+)*(?:" + _alternatives(TOGETHER_JOINERS)
                       + r")\s*$")


def _word_alternatives(words: tuple[str, ...]) -> str:
    """A regex alternation of the words as written and folded, longest first."""
    forms = {w for word in words for w in (word, fold(word))}
    return "|".join(re.escape(w) for w in sorted(forms, key=len, reverse=True))


_CONDITION_FILLER = re.compile(r"^(?:(?:" + _word_alternatives(CONDITION_FILLER_WORDS) + r")\s+)+")
_CONDITION_TAIL = re.compile(r"(?:\s+(?:" + _word_alternatives(CONDITION_TAIL_WORDS) + r"))+$")
# "thuốc hạ sốt nào", "thuốc giảm đau gì": a which-drug question with the condition between (up to four words).
# "những kháng sinh nào ...": an anti-infective's class word asks which drug as "thuốc" does
_WHICH_AROUND = re.compile(r"(?<!\w)(?:thuốc|kháng sinh)((?:\s+\w+){0,4}?)\s+(?:nào|gì)(?!\w)")
_WHICH_AROUND_FOLDED = re.compile(r"(?<!\w)(?:thuoc|khang sinh)((?:\s+\w+){0,4}?)\s+(?:nao|gi)(?!\w)")
_DRUG_WORD = ("thuốc",)
# "thuốc bôi nào": the form asked for, not the condition
_ROUTE_WORDS = re.compile("|".join(re.escape(fold(p)) for p, _ in ROUTE_PHRASES))
_GROUP_PREPOSITIONS = frozenset(fold(w) for w in GROUP_PREPOSITIONS)
_GROUP_HEADS = frozenset(fold(w) for w in GROUP_HEAD_WORDS)


def valid_text(text: str) -> str:
    """The text as valid Unicode: bytes the OS could not decode (lone surrogates, as `os.fsdecode` keeps them)
    become U+FFFD, the valid UTF-8 around them kept, so no later write (store, trace, JSON) fails on them."""
    if not any("\ud800" <= ch <= "\udfff" for ch in text):
        return text
    try:  # undo surrogateescape first: the valid bytes around the bad ones come back as what they were
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate surrogateescape never makes (an unpaired "\ud800" from a caller)
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def understand(text: str, catalog: Catalog) -> QueryFrame:
    """The frame of one question, on its own (the conversation's earlier turns are merged by memory)."""
    raw_text = Text.of(text)
    clean = Text.of(expand_abbreviations(scope.strip_injection(text)))
    interaction_cue = mentions_interaction(clean)
    resolution = catalog.resolve(clean.raw)
    drug_ids = resolution.drug_ids
    mentions: dict[str, str] = {}
    for match in resolution.matches:
        mentions.setdefault(match.drug_id, match.said)
    said_of = dict(mentions)
    context = {d: kind for d in drug_ids if (kind := _context_kind(clean, said_of.get(d, ""))) is not None}
    if len(drug_ids) > 1 and not interaction_cue:
        # "... không dùng được aspirin, liều clopidogrel ...": a drug the patient cannot take is context
        kept = [d for d in drug_ids if context.get(d) != "ruled_out"]
        if kept:
            drug_ids = kept
            mentions = {d: m for d, m in mentions.items() if d in kept}

    ask = route_section(clean)
    if ask.key is None and mentions:
        # "dùng warfarin thế nào?": the drug's name between the words that ask ("dùng thế nào") parts them
        ask = route_section(Text.of(without_names(clean.raw, list(mentions.values()))))
    context_section = None
    if context and set(drug_ids) <= set(context):
        # "Bệnh nhân dị ứng aspirin thì sao?" after a question about another drug: what the turn asks once its
        # words about the patient ("dị ứng aspirin") are left out (memory keeps the earlier subject then)
        context_section = route_section(Text.of(_without_context(clean, [said_of[d] for d in context]))).key
    age = extractors.extract_age(clean)
    weight = extractors.extract_weight(clean)
    condition = extractors.extract_condition(clean)
    population = extractors.extract_population(clean, age)

    frame = QueryFrame(
        question=text.strip(),
        drug_ids=drug_ids,
        drug_mentions=mentions,
        unknown_drugs=_dedupe(resolution.unknown),
        drug_classes=_dedupe(resolution.classes),
        section_key=ask.key,
        whole_section=ask.whole_section,
        population=population,
        age_years=age.years if age else None,
        age_text=age.text if age else None,
        gestational_weeks=age.gestational_weeks if age else None,
        weight_kg=weight[0] if weight else None,
        weight_text=weight[1] if weight else None,
        route=extractors.extract_route(clean),
        clcr=extractors.extract_clcr(clean),
        condition=condition,
        pregnant=extractors.is_pregnant(clean),
        breastfeeding=extractors.is_breastfeeding(clean),
        non_human=scope.is_non_human(clean),
        non_medical=(not drug_ids and scope.is_non_medical(clean) and not _asks_for_a_patient(ask.key, age, weight,
                                                                                             population, clean))
        or scope.asks_price_or_purchase(clean),
        injection_attempt=scope.is_injection_attempt(raw_text),
        via_trade_name=resolution.via_trade_name,
        ranking=any_of(clean, RANKING_PHRASES),
        context_drugs=context,
        context_section=context_section,
    )
    frame.turn_type = _turn_type(frame, clean, interaction_cue, ask.phrase in CAN_USE_PHRASES)
    if frame.turn_type == "contraindicated_in":
        frame.section_key = CONTRAINDICATIONS
        frame.condition = _contraindicated_in_what(clean) or frame.condition
    if frame.turn_type == "condition_to_drug" and (
        not frame.condition or any_of(Text.of(frame.condition), RANKING_PHRASES + CONDITION_TAIL_WORDS)
    ):
        frame.condition = _condition_around_which(clean) or frame.condition
    if frame.turn_type == "interaction":
        frame.section_key = INTERACTION
    if frame.turn_type == "dosing":
        _taken_as_context(frame, catalog)
    _unknown_taken(frame, clean)
    frame = patient_facts.add_patient_facts(frame, clean.raw)
    if _names_nothing(frame):
        partner = _follow_up_partner(clean)
        if partner:  # "Còn với thuốc có sắt thì sao?": a partner for the conversation's drug (see memory)
            frame.drug_classes = [partner]
    return frame


def _asks_for_a_patient(section: str | None, age, weight, population, text: Text) -> bool:
    """A section of the book asked for a patient named by group, age, weight or route ("Ỉa chảy ở khách du lịch,
    người lớn uống bao nhiêu?", a follow-up naming no drug): a clinical question, whatever other words it holds."""
    return section is not None and (age is not None or weight is not None or population is not None
                                    or extractors.extract_route(text) is not None)


def _names_nothing(frame: QueryFrame) -> bool:
    facts = (frame.population, frame.age_years, frame.weight_kg, frame.route, frame.clcr, frame.condition)
    return (
        frame.turn_type == "unknown" and frame.section_key is None
        and not (frame.drug_ids or frame.unknown_drugs or frame.drug_classes)
        and all(f is None for f in facts)
        and not (frame.pregnant or frame.breastfeeding or frame.renal_impairment or frame.hepatic_impairment)
    )


def _is_word(typed: str, words: tuple[str, ...]) -> bool:
    """As typed, or folded when typed without diacritics."""
    return typed in words or (not has_diacritics(typed) and typed in {fold(w) for w in words})


def _follow_up_partner(text: Text) -> str | None:
    """The partner of 'Còn (với) thuốc có sắt thì sao?' ('sắt'): a turn opened by "còn" or a joiner, the lead and
    tail words dropped, one to three words left, none of them a question word and not all general words."""
    words = re.findall(r"\w+", text.norm)
    i = 0
    while i < len(words) and _is_word(words[i], FOLLOW_UP_OPENERS):
        i += 1
    j = i
    while j < len(words) and _is_word(words[j], PARTNER_LEAD_WORDS):
        j += 1
    k = len(words)
    while k > j and _is_word(words[k - 1], FOLLOW_UP_TAIL_WORDS):
        k -= 1
    opened = i > 0 or any(_is_word(w, PARTNER_JOINER_WORDS) for w in words[:j])
    partner = words[j:k]
    if not opened or not 0 < len(partner) <= 3 or any(_is_word(w, PARTNER_QUESTION_WORDS) for w in partner):
        return None
    if all(_is_word(w, GENERAL_WORDS) for w in partner):
        return None
    return " ".join(partner)


def _turn_type(frame: QueryFrame, text: Text, interaction_cue: bool, can_use: bool = False) -> str:
    if frame.non_human or frame.non_medical:
        return "out_of_scope"
    if not frame.drug_ids:
        which = _asks_which_drug(text)
        if which and any_of(text, CONTRAINDICATED_IN_PHRASES):
            return "contraindicated_in"
        if which and any_of(without_terms(text, NOT_CAUSE_TERMS), CAUSE_PHRASES):
            return "condition_relation"
        if which or (frame.section_key == "chi_dinh" and frame.condition):
            return "condition_to_drug"
        if frame.ranking and any_of(text, _DRUG_WORD) and not frame.unknown_drugs:
            return "condition_to_drug"  # "Thuốc hạ sốt tốt nhất cho trẻ em?": the list, never a clarify
        if scope.is_smalltalk(text) and frame.section_key is None:
            return "smalltalk"
    partners = len(frame.drug_ids) + len(frame.unknown_drugs) + len(frame.drug_classes)
    if frame.drug_ids and partners >= 2 and frame.section_key != "tuong_ky":
        # "có dùng được không" with two drugs asks whether they can be used together, not for a contraindication
        open_ask = frame.section_key is None or can_use
        if interaction_cue or any_of(text, COADMINISTRATION_CUES) or (open_ask and any_of(text, _JOINERS)):
            return "interaction"
        if _taken_together(text, [*frame.drug_mentions.values(), *frame.unknown_drugs, *frame.drug_classes]):
            return "interaction"  # "Uống warfarin với aspirin thì liều thế nào?": the pair, not two doses
        if any_of(text, ALREADY_TAKING_CUES) and any_of(text, MAY_I_CUES + ADDING_CUES):
            return "interaction"  # "Đang dùng warfarin có uống aspirin liều cao được không?": not a dose question
        if open_ask and any_of(text, TWO_DRUG_CUES):
            # "Đang dùng warfarin thì uống paracetamol có ảnh hưởng gì không?", "X có ảnh hưởng đến nồng độ Y?"
            return "interaction"
    if frame.section_key is None and frame.drug_ids and partners == 1 and _asks_partners_of_level(text):
        # "Những thuốc nào làm tăng nồng độ X?", "X làm tăng nồng độ những thuốc nào?": the drugs that change a
        # level are its interactions, not what it causes
        frame.section_key = INTERACTION
    if (frame.section_key is None and frame.drug_ids and partners == 1
            and any_of(without_terms(text, NOT_CAUSE_TERMS), CAUSE_PHRASES)):
        frame.section_key = ADR  # "Paracetamol có gây buồn nôn không?": what the drug causes is its ADR section
    if frame.section_key is None and frame.drug_ids and _has_dosing_facts(frame):
        # "Vancomycin truyền tĩnh mạch cho trẻ 6 tuổi nặng 20 kg?": a route, an age, a weight or a Clcr with a
        # drug and no section named asks how much to give.
        frame.section_key = DOSING
    if frame.section_key == DOSING:
        return "dosing"
    if frame.section_key is not None:
        return "drug_attribute"
    return "unknown"


def _taken_together(text: Text, said: list[str]) -> bool:
    """Two of the drugs named stand apart only by words that take them together ("X với Y", "X khi dùng cùng Y"),
    not by "và" or a comma (two doses asked side by side)."""
    low = text.raw.lower()
    places = sorted((i, i + len(s)) for s in {s.lower() for s in said if s} if (i := low.find(s)) >= 0)
    return any(_TOGETHER.match(fold(low[a_end:b_start])) for (_, a_end), (b_start, _) in pairwise(places))


_LEVEL_WORDS = ("nồng độ", "hấp thu", "thải trừ", "chuyển hóa")


def _asks_partners_of_level(text: Text) -> bool:
    """Which drugs raise or lower the level of one drug (or have theirs raised by it)."""
    return _asks_which_drug(text) and any_of(text, _LEVEL_WORDS)


def _has_dosing_facts(frame: QueryFrame) -> bool:
    return (
        frame.route is not None
        or frame.age_years is not None
        or frame.weight_kg is not None
        or frame.clcr is not None
        or frame.gestational_weeks is not None
    )


def _asks_which_drug(text: Text) -> bool:
    """'Thuốc nào ...', 'những thuốc ...', 'thuốc hạ sốt nào ...'."""
    return any_of(text, WHICH_DRUG_PHRASES) or _which_around(text) is not None


def _which_around(text: Text) -> re.Match[str] | None:
    return (_WHICH_AROUND.search(text.norm) if text.accented else _WHICH_AROUND_FOLDED.search(text.folded))


def _condition_around_which(text: Text) -> str | None:
    """The condition of 'Tăng huyết áp dùng thuốc gì?', 'Thuốc nào tốt cho gan?', 'Thuốc hạ sốt nào tốt nhất?'
    (no trigger word before it); ranking words ('tốt nhất') are not the condition."""
    norm = text.norm
    for phrase in RANKING_PHRASES:
        m = first_of(Text.of(norm), (phrase,))
        if m is not None:
            norm = norm[: m[1].start()] + " " * (m[1].end() - m[1].start()) + norm[m[1].end() :]
    text = Text.of(norm)
    parts: list[str] = []
    around = _which_around(text)
    if around is not None:
        # "thuốc hạ sốt nào", else what follows: "những kháng sinh nào có chỉ định X", "thuốc bôi nào trị X"
        parts += [around.group(1), text.norm[around.end() :]]
    hit = first_of(text, WHICH_DRUG_PHRASES)
    if hit is not None:
        parts += [text.norm[: hit[1].start()], text.norm[hit[1].end() :]]
    elif around is None:
        drug_word = first_of(text, _DRUG_WORD)
        if drug_word is not None:
            parts.append(text.norm[drug_word[1].end() :])
    for part in parts:
        part = _clean_condition(part)
        if part is not None and not _ROUTE_WORDS.fullmatch(fold(part)):
            return part
    return None


def _contraindicated_in_what(text: Text) -> str | None:
    """'Thuốc nào chống chỉ định cho phụ nữ có thai?' -> 'phụ nữ có thai' (the words after the phrase)."""
    hit = first_of(text, CONTRAINDICATED_IN_PHRASES)
    if hit is None:
        return None
    rest = re.sub(r"[?!.,;:]", " ", text.norm[hit[1].end() :]).split()
    if rest and fold(rest[0]) in _GROUP_PREPOSITIONS:  # "cho người đang cho con bú": the first "cho" only
        rest = rest[1:]
    while rest and fold(rest[0]) in _GROUP_HEADS:
        rest = rest[1:]
    return _clean_condition(" ".join(rest), filler=False)


def _clean_condition(part: str, filler: bool = True) -> str | None:
    part = re.sub(r"[?!.,;:]", " ", part)
    part = re.sub(r"\s+", " ", part).strip()
    if filler:
        part = _CONDITION_FILLER.sub("", part + " ").strip()
    part = _CONDITION_TAIL.sub("", part).strip()
    for which in WHICH_DRUG_PHRASES:
        if part == which or fold(part) == fold(which):
            return None
    return part if len(part) >= 2 else None


_RULED_OUT_WORDS = (r"(?:không (?:dùng|uống|dung nạp) được|không thể (?:dùng|uống)|không dung nạp(?: được)?"
                    r"|dị ứng(?: với)?|chống chỉ định(?: với)?)\s+(?:thuốc\s+)?$")
_RULED_OUT = re.compile(_RULED_OUT_WORDS)
_RULED_OUT_FOLDED = re.compile(fold(_RULED_OUT_WORDS))


_TAKING_WORDS = (r"(?:đang (?:được )?(?:dùng|uống|tiêm|điều trị)(?: bằng| với)?|đã (?:dùng|uống))\s+(?:cả\s+)?"
                 r"(?:thuốc\s+)?$")
_TAKING = re.compile(_TAKING_WORDS)
_TAKING_FOLDED = re.compile(fold(_TAKING_WORDS))


def _cue_before(text: Text, said: str) -> tuple[str, int] | None:
    """How the drug is named as a fact of the patient, and where that cue starts: ruled_out for one the patient
    cannot take ("không dùng được aspirin", "dị ứng với penicilin"), taking for one already taken ("đang dùng
    warfarin")."""
    if not said:
        return None
    at = text.norm.find(said.lower())
    if at < 0:
        return None
    start = max(0, at - 40)
    before, folded = text.norm[start:at], fold(text.norm[start:at])
    for kind, accented, plain in (("ruled_out", _RULED_OUT, _RULED_OUT_FOLDED), ("taking", _TAKING, _TAKING_FOLDED)):
        m = accented.search(before) or plain.search(folded)
        if m:
            return kind, start + m.start()
    return None


def _context_kind(text: Text, said: str) -> str | None:
    found = _cue_before(text, said)
    return found[0] if found else None


def _without_context(text: Text, said: list[str]) -> str:
    """The question with each context phrase ("dị ứng aspirin", "đang dùng warfarin") blanked."""
    norm = text.norm
    for mention in said:
        found = _cue_before(Text.of(norm), mention)
        if found is None:
            continue
        at = norm.find(mention.lower(), found[1])
        while found is not None and at >= 0:
            norm = norm[: found[1]] + " " * (at + len(mention) - found[1]) + norm[at + len(mention) :]
            found = _cue_before(Text.of(norm), mention)
            at = norm.find(mention.lower(), found[1]) if found else -1
    return norm


def _taken_as_context(frame: QueryFrame, catalog: Catalog) -> None:
    """"Đang dùng aspirin, dùng warfarin liều bao nhiêu?": the dose asked is warfarin's; aspirin is a medicine the
    patient takes, kept as its book names for the warnings (Tương tác thuốc, "Chống chỉ định phối hợp")."""
    taking = [d for d in frame.drug_ids if frame.context_drugs.get(d) == "taking"]
    asked = [d for d in frame.drug_ids if d not in taking]
    if not taking or not asked:
        return
    names: list[str] = []
    for drug_id in taking:
        for name in (frame.drug_mentions.get(drug_id, ""), catalog.title(drug_id), *catalog.names_for(drug_id)):
            if name and name.lower() not in (n.lower() for n in names):
                names.append(name)
    frame.taking_names = names
    frame.drug_ids = asked
    frame.drug_mentions = {d: m for d, m in frame.drug_mentions.items() if d in asked}
    frame.via_trade_name = {d: v for d, v in frame.via_trade_name.items() if d in asked}


def _unknown_taken(frame: QueryFrame, text: Text) -> None:
    """"bn này đang uống thuốc X": a medicine the book has no monograph of, named as one the patient takes, is a
    fact of the patient (its name is looked for in the asked drug's warnings), not a drug asked about."""
    for name in frame.unknown_drugs:
        found = _cue_before(text, name)
        if found is not None and found[0] == "taking" and name.lower() not in map(str.lower, frame.taking_names):
            frame.taking_names = [*frame.taking_names, name]


def _dedupe(items: list[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item.lower() not in (o.lower() for o in out):
            out.append(item)
    return out
