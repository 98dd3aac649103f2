"""Fact-level signals and sentence alignment on constructed one-fact swaps.

Each pair is a faithful sentence and the same sentence with one fact changed (a year, a
number, a person, a place, an antonym, a negation) or one claim added. Nearly every word
of a swapped sentence is still in the context, so overall word overlap barely moves; the
signal named for each kind has to.
"""

from __future__ import annotations

import pytest

from ragtriage.judge.alignment import align_answer, cited_passages, evidence_for, stem
from ragtriage.judge.api import judge_faithfulness
from ragtriage.judge.facts import (
    contradicts,
    fact_signals,
    names,
    negated,
    numbers,
    unstated_negation,
)
from ragtriage.judge.lexical import split_sentences
from ragtriage.judge.strategies.common import lexical_signals
from ragtriage.judge.types import ContextChunk, JudgeItem

CONTEXT = (
    ContextChunk(
        id="bridge",
        text=(
            "The Lindqvist Bridge crosses the Ardal River north of Tovik. It was opened in "
            "1998 by the engineer Maria Hoff. The bridge is 420 metres long and carries "
            "about 12,000 vehicles a day. Tolls were abolished in 2010, and traffic has "
            "increased since then. The bridge is not open to trucks over 40 tonnes."
        ),
    ),
    ContextChunk(
        id="ferry",
        text="Before the bridge, a ferry ran between Tovik and Halsa every two hours.",
    ),
)

ORIGINAL = "The Lindqvist Bridge was opened in 1998 by the engineer Maria Hoff."
PAIRS = {
    "year": (ORIGINAL, "The Lindqvist Bridge was opened in 2003 by the engineer Maria Hoff."),
    "number": (
        "The bridge is 420 metres long.",
        "The bridge is 520 metres long.",
    ),
    "person": (ORIGINAL, "The Lindqvist Bridge was opened in 1998 by the engineer Anna Berg."),
    "place": (
        "The Lindqvist Bridge crosses the Ardal River.",
        "The Lindqvist Bridge crosses the Gudbrand River.",
    ),
    "spelt number": (
        "Before the bridge, a ferry ran between Tovik and Halsa every 2 hours.",
        "Before the bridge, a ferry ran between Tovik and Halsa every three hours.",
    ),
    "antonym": (
        "Since tolls were abolished in 2010, traffic has increased.",
        "Since tolls were abolished in 2010, traffic has fallen.",
    ),
    "negation": (
        "The bridge is not open to trucks over 40 tonnes.",
        "The bridge is open to trucks over 40 tonnes.",
    ),
    "added claim": (
        ORIGINAL,
        ORIGINAL + " It was built mainly to shorten ambulance journeys to the coast.",
    ),
}
# The signal that must flag each kind: (signal, the swap must be higher (+1) or lower (-1)).
FLAGGED_BY = {
    "year": ("novel_facts", +1),
    "number": ("novel_facts", +1),
    "spelt number": ("novel_numbers", +1),
    "person": ("novel_facts", +1),
    "place": ("novel_facts", +1),
    "antonym": ("contradictions", +1),
    "negation": ("contradictions", +1),
    "added claim": ("min_sentence_alignment", -1),
}


def signals(answer: str) -> dict[str, float]:
    return lexical_signals(JudgeItem(id="x", question="q", contexts=CONTEXT, answer=answer))


@pytest.mark.parametrize("kind", sorted(PAIRS))
def test_the_named_signal_flags_each_one_fact_swap(kind):
    original, swapped = PAIRS[kind]
    name, direction = FLAGGED_BY[kind]
    before, after = signals(original), signals(swapped)
    assert direction * (after[name] - before[name]) > 0, (kind, before[name], after[name])


@pytest.mark.parametrize("kind", sorted(PAIRS))
def test_originals_are_fully_aligned_and_state_no_novel_fact(kind):
    original, _ = PAIRS[kind]
    s = signals(original)
    assert s["novel_facts"] == 0
    assert s["negation_mismatch"] == 0
    assert s["min_sentence_alignment"] >= 0.8


def test_word_overlap_alone_barely_moves_on_a_swap():
    """Why the fact signals exist: the year swap keeps 6 of 7 content words."""
    original, swapped = PAIRS["year"]
    assert signals(original)["lexical"] - signals(swapped)["lexical"] < 0.2


def test_numbers_are_normalised_and_citation_markers_are_not_numbers():
    assert numbers("It costs 1,000 dollars [2], about 3.50 per day.") == {"1000", "3.5"}
    assert numbers("See [1, 2] and [3-4].") == set()


def test_names_skip_function_words_and_a_first_word_that_is_not_a_name():
    assert names("However, Maria Hoff met The Board in Oslo.") == {"maria", "hoff", "board", "oslo"}
    assert names("Researchers have found it in Oslo.") == {"oslo"}  # a plural subject
    assert names("Additionally, it is large.") == names("Generally it is.") == set()
    assert names("Because it rained, we left.") == set()


def test_a_first_word_is_a_name_when_it_reads_as_one():
    """One-fact swaps at the start of a sentence: "London Bridge" -> "Manchester Bridge",
    "California does not tax" -> "Scotland does not tax"."""
    assert names("Manchester Bridge is in Lake Havasu City.") >= {"manchester", "bridge"}
    assert "scotland" in names("Scotland does not tax California Lottery winnings.")
    assert "oslo" in names("Oslo is large.")


def test_negation_includes_contractions():
    assert negated("It isn't open.") and negated("It is never open.") and not negated("It is open.")


def test_citations_restrict_the_evidence_to_the_cited_passage():
    """``[2]`` means the second passage: a sentence citing the ferry passage is aligned
    with it, not with the bridge passage that shares more words."""
    chunks = (
        ContextChunk(id="a", text="The ferry was replaced by the bridge in 1998."),
        ContextChunk(id="b", text="A ferry ran every two hours."),
    )
    (aligned,) = align_answer(["The ferry was replaced in 1998 [2]."], chunks)
    assert aligned.cited == (1,)
    assert "1998" not in aligned.pool
    assert fact_signals([aligned], answer_cites=True)["novel_numbers"] == 1


def test_cited_passages_ranges_lists_and_out_of_range_markers():
    assert cited_passages("x [1, 3] y [5-6] z [9]", n_passages=6) == [0, 2, 4, 5]
    assert cited_passages("no markers", n_passages=3) == []


def test_uncited_sentences_count_only_when_the_answer_cites():
    chunks = (ContextChunk(id="a", text="Oslo is the capital of Norway."),)
    mixed = align_answer(["Oslo is the capital [1].", "Norway is cold."], chunks)
    assert fact_signals(mixed, answer_cites=True)["uncited_sentences"] == 0.5
    plain = align_answer(["Oslo is the capital.", "Norway is cold."], chunks)
    assert fact_signals(plain, answer_cites=False)["uncited_sentences"] == 0.0


def test_evidence_is_the_best_window_within_the_budget():
    (aligned,) = align_answer(["Traffic has increased since tolls were abolished."], CONTEXT)
    text = evidence_for(aligned, budget=120)
    assert "Tolls were abolished in 2010" in text
    assert len(text) <= 120 + 2


def test_stem_is_light_and_leaves_numbers_alone():
    assert stem("supported") == stem("supports") == "support"
    assert stem("1998s") == "1998s" and stem("is") == "is"


@pytest.mark.parametrize("kind", sorted(PAIRS))
def test_the_fact_check_flags_every_fact_swap_and_no_original(kind):
    """``fact_check`` is what every calibrated decision vetoes on (added claims are left to
    the alignment: they state new words, not a changed fact)."""
    original, swapped = PAIRS[kind]
    assert signals(original)["fact_check"] == 0
    if kind != "added claim":
        assert signals(swapped)["fact_check"] > 0


def test_a_possessive_or_a_tokenised_hyphen_is_the_same_name():
    """``Dawson's`` is the name ``Dawson``; ``Marie-Claude`` is ``Marie - Claude`` in a
    tokenised passage: neither is a new fact (ClapNQ reference answers do both)."""
    chunks = (ContextChunk(id="a", text="Joey Potter lives next to Dawson and Marie - Claude ."),)
    aligned = align_answer(["Joey is Dawson's neighbour, like Marie-Claude."], chunks)
    assert fact_signals(aligned, answer_cites=False)["novel_names"] == 0
    spaced = (ContextChunk(id="a", text="The arena is in South East London ."),)
    joined = align_answer(["The arena is in Southeast London."], spaced)
    assert fact_signals(joined, answer_cites=False)["novel_names"] == 0
    swapped = align_answer(["Joey is Pacey's neighbour, like Marie-Claude."], chunks)
    assert fact_signals(swapped, answer_cites=False)["novel_names"] == 1


def test_facts_must_be_in_the_passage_the_sentence_restates():
    """A year found only in a neighbouring search result on the same topic does not
    support a sentence that restates another passage (its best windows all lie there)."""
    idol = (
        "The revival season of American Idol premiered on March 11, 2018. "
        "Katy Perry, Luke Bryan and Lionel Richie were the judges of the revival season."
    )
    chunks = (
        ContextChunk(id="a", text=idol),
        ContextChunk(id="b", text="A talent show on another network began in 2015."),
    )
    sentence = "The revival season of American Idol premiered on March 11, {}."
    swapped = align_answer([sentence.format(2015)], chunks)
    assert fact_signals(swapped, answer_cites=False)["novel_numbers"] == 1
    original = align_answer([sentence.format(2018)], chunks)
    assert fact_signals(original, answer_cites=False)["novel_numbers"] == 0


@pytest.mark.parametrize(
    ("sentence", "window"),
    [
        (  # an antonym inside a long sentence that restates only part of its window
            "The shortest running character in General Hospital is Monica, who has been "
            "played by Leslie Charleson since 1977 and appears in most episodes.",
            "The longest running character in General Hospital is Monica Quartermaine.",
        ),
        (  # a negation with an aside between subject and verb in the window
            "The Mach Five is not the racing car Speed Racer drives.",
            "The Mach Five ( マッハ 号 , Mahha - gō ) is the racing car Speed Racer drives.",
        ),
        (  # the window negates what the sentence asserts
            "Bone marrow is found in every bone of the adult skeleton.",
            "Bone marrow is not found in every bone of the adult skeleton.",
        ),
    ],
)
def test_local_contradictions(sentence, window):
    assert contradicts(sentence, window)


@pytest.mark.parametrize(
    ("sentence", "window"),
    [
        ("Higher incomes came with lower poverty.", "Higher incomes came with lower poverty."),
        (  # a negation about something else in the window
            "The bridge opened in 1998.",
            "The bridge opened in 1998, though it did not carry trains.",
        ),
        (  # an antonym with no neighbour in common
            "Tolls rose after the election.",
            "Rainfall fell sharply in the north of the region.",
        ),
        (  # hedged: both
            "A morpheme may or may not stand alone.",
            "When a morpheme stands by itself, it is a root.",
        ),
        (  # a double negation in the window
            "Beam bridges are used for short distances.",
            "This does n't mean beam bridges are n't used to cross great distances.",
        ),
        (  # the sentence states the window's phrase too
            "The West Branch begins near Mount Jefferson, and the East Branch begins at "
            "Grand Gorge.",
            "The West Branch begins near Mount Jefferson in the Town of Jefferson.",
        ),
    ],
)
def test_restatements_and_unrelated_antonyms_are_not_contradictions(sentence, window):
    assert not contradicts(sentence, window)


def test_a_negated_statement_with_nothing_before_the_negator():
    assert contradicts(
        "It is not produced artificially in reactors.", "It is produced artificially in reactors."
    )
    assert contradicts(
        "There are not three women washing clothes.", "They see three women washing clothes."
    )
    assert not contradicts(
        "It is not produced in reactors.", "It is not produced in reactors at all."
    )


def test_a_negator_inside_a_quoted_title_is_not_a_negation():
    window = "`` It 's Now or Never '' is a ballad recorded by Elvis Presley in 1960 ."
    assert contradicts(
        "`` It 's Now or Never '' is not a ballad recorded by Elvis Presley.", window
    )
    assert not contradicts(
        "`` It 's Now or Never '' is a ballad recorded by Elvis Presley.", window
    )


def test_an_antonym_is_a_swap_unless_stated_in_the_same_place():
    window = "The IT industry continues to be the largest private - sector employer in India ."
    swapped = (
        "The IT industry continues to be the smallest private - sector employer in India, "
        "and the agricultural sector is the largest employer in India 's economy."
    )
    assert contradicts(swapped, window)  # "largest" is stated too, but of another sector
    window = "It is at the south - western tip of the North Island , between Cook Strait ."
    assert contradicts("Wellington is at a tip of the south Island.", window)
    assert not contradicts("Wellington is at the south-western tip of the North Island.", window)


def test_a_denial_the_evidence_does_not_state():
    """A sentence that negates where its evidence negates nothing; hedges, quoted titles
    and a negator anywhere in the evidence (an aside included) are not counted."""
    assert unstated_negation("Delmar is not convinced they were Sirens.", "Delmar is convinced.")
    assert not unstated_negation("It may or may not stand alone.", "It can stand alone.")
    assert not unstated_negation("`` Now or Never '' is a ballad.", "It is a ballad by Presley.")
    evidence = "It gives a false impression ( since it is not a representative sample ) ."
    assert not unstated_negation("It is not a representative sample.", evidence)


def test_unstated_negations_are_part_of_the_fact_check():
    context = (ContextChunk(id="c0", text="Delmar is convinced that the three women were Sirens."),)
    swapped = JudgeItem(
        id="x",
        question="q",
        contexts=context,
        answer="Delmar is not convinced that the three women were Sirens.",
    )
    (result,) = judge_faithfulness([swapped], strategy="lexical", cache=None)
    assert result.signals["unstated_negations"] == 1.0
    assert result.signals["fact_check"] >= 1.0


def test_a_name_spelt_without_its_accents_is_the_same_name():
    evidence = [
        align_answer(
            ["The name derives from the Greek Makedonia."],
            (ContextChunk(id="c0", text="From the Greek Μακεδονία ( Makedonía ) ."),),
        )[0]
    ]
    assert fact_signals(evidence, answer_cites=False)["novel_names"] == 0


def test_sentences_do_not_end_at_an_abbreviation_or_an_initial():
    """ "Robert S.P. Beekes" split after "S.P." left a fragment without its name, and a
    correct answer under the overlap threshold."""
    text = "It is Dr. Monica Quartermaine. It was Robert S.P. Beekes. The U.S. Army came. It ended!"
    assert split_sentences(text) == [
        "It is Dr. Monica Quartermaine.",
        "It was Robert S.P. Beekes.",
        "The U.S. Army came.",
        "It ended!",
    ]
    assert split_sentences("It rose in 1998. Then it fell. Vol. 5 won. No. It did not.") == [
        "It rose in 1998.",
        "Then it fell.",
        "Vol. 5 won.",
        "No.",
        "It did not.",
    ]


def test_without_states_a_goal_not_a_denial():
    """The handbook demo's correct answer restating the question's "without losing files"."""
    sentence = "To get back in without losing files, you can reset the admin password."
    assert not unstated_negation(sentence, "It resets the admin password but keeps your data.")


@pytest.mark.parametrize("answer", ["A doctor's note is required.", "Keep the notes with you."])
def test_a_word_ending_in_e_is_not_a_negator_once_stemmed(answer):
    """ "note" less its final e read "not": every answer mentioning a note failed the fact
    check as a denial its evidence does not state."""
    assert not unstated_negation(answer, "Bring a medical certificate on your first day back.")
    item = JudgeItem(
        id="n",
        question="q",
        contexts=(ContextChunk(id="c0", text="A doctor's note is required after three days."),),
        answer="A doctor's note is required after three days.",
    )
    assert lexical_signals(item)["fact_check"] == 0.0


def test_none_is_a_denial():
    assert unstated_negation("None of the rooms has a window.", "The rooms have windows.")


@pytest.mark.parametrize(
    ("sentence", "window"),
    [  # polarity flips written for this test (not from any evaluation set)
        ("The sun rises in the southeast in winter.", "The sun rises in the northeast in winter."),
        ("Rain is unlikely in the valley this week.", "Rain is likely in the valley this week."),
        ("Parking on the street is legal after midnight.",
         "Parking on the street is illegal after midnight."),
        ("The council disagreed with the plan for the harbour.",
         "The council agreed with the plan for the harbour."),
        ("Visitors are forbidden to photograph the paintings.",
         "Visitors are permitted to photograph the paintings."),
        ("Prices rarely rise in the winter months.", "Prices usually rise in the winter months."),
        ("The vote to approve the budget passed the senate.",
         "The vote to reject the budget passed the senate."),
        ("The northwestern coast gets the most rain.",
         "The southwestern coast gets the most rain."),
    ],
)  # fmt: skip
def test_polarity_flips_are_contradictions(sentence, window):
    assert contradicts(sentence, window)


@pytest.mark.parametrize(
    ("sentence", "window"),
    [
        ("The index lists every town in the county.", "The index lists every town in the county."),
        ("The sun rises in the northeast in summer.", "The sun rises in the northeast in summer."),
        # a prefixed word with nothing shared around it
        ("An unknown author wrote the play.", "The route is known to sailors in the north."),
        # the list's own pairs are not split into prefixes: "inside" is no "in" + "side"
        ("The key is inside the box on the shelf.",
         "The key is on the side of the box on the shelf."),
        # both forms stated in the same place
        ("Some claims were true and some were untrue in the report.",
         "Some claims were true and some were untrue in the report."),
    ],
)  # fmt: skip
def test_restated_or_unrelated_prefixed_words_are_no_flip(sentence, window):
    assert not contradicts(sentence, window)
