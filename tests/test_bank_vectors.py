"""The exemplar banks' shipped vectors (anchormem.facts.bank_vectors): used only when they match the bank and model."""

import numpy as np
import pytest

from anchormem.facts import bank_vectors, meaning


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_shipped_vectors_match_the_current_bank(lang):
    texts, labels = meaning.bank_texts(lang)
    vecs = bank_vectors.load("multilingual-e5-small-q4", 384, lang, texts)
    assert vecs is not None, "rebuild with: python -m anchormem.facts.bank_vectors"
    assert vecs.shape == (len(texts), 384) and vecs.dtype == np.float32
    assert len(labels) == len(texts) and "none" in labels
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-3)


def test_an_edited_bank_or_another_model_gets_no_stale_vectors():
    texts, _ = meaning.bank_texts("en")
    assert bank_vectors.load("multilingual-e5-small-q4", 384, "en", texts + ["I now live in Porto."]) is None
    assert bank_vectors.load("multilingual-e5-small-q4", 768, "en", texts) is None
    assert bank_vectors.load("some-other-model", 384, "en", texts) is None
    assert bank_vectors.digest(["a", "b"]) != bank_vectors.digest(["b", "a"])


def test_the_shipped_vectors_are_what_the_bundled_model_gives():
    from anchormem.embedders import make_embedder

    texts, _ = meaning.bank_texts("zh")
    shipped = bank_vectors.load("multilingual-e5-small-q4", 384, "zh", texts)
    fresh = make_embedder("auto").embed_documents(texts[:4])
    assert np.abs(shipped[:4] @ fresh.T - fresh @ fresh.T).max() < 1e-3


class Counting:
    name, dim = "multilingual-e5-small-q4", 384

    def __init__(self):
        self.texts = 0

    def embed_documents(self, texts):
        self.texts += len(texts)
        return np.zeros((len(texts), 384), dtype=np.float32)


def test_the_first_fallback_add_does_not_embed_the_bank(monkeypatch):
    monkeypatch.setattr(meaning, "_BANKS", {})
    emb = Counting()
    vecs, labels = meaning._bank(emb, "en")
    assert emb.texts == 0 and vecs.shape == (len(labels), 384)


@pytest.mark.parametrize("bank", sorted(bank_vectors.BANKS))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_ask_banks_ship_and_equal_what_the_bundled_model_gives(bank, lang):
    from anchormem.embedders import make_embedder

    texts = bank_vectors.bank_texts(bank, lang)
    shipped = bank_vectors.load("multilingual-e5-small-q4", 384, lang, texts, bank)
    assert shipped is not None and shipped.shape == (len(texts), 384) and len(texts) >= 20, \
        "rebuild with: python -m anchormem.facts.bank_vectors"
    fresh = make_embedder("auto").embed_documents(texts)
    # the quantised model's int8 kernels differ by CPU (AVX-512 VNNI vs AVX2: components differ by up to ~0.003);
    # the same direction is what calibration needs
    assert (shipped * fresh).sum(axis=1).min() > 0.9995 and np.abs(shipped - fresh).max() < 5e-3
    assert bank_vectors.load("multilingual-e5-small-q4", 384, lang, texts[1:], bank) is None  # edited: no vectors


def test_the_first_ask_does_not_embed_the_calibration_banks():
    from anchormem.answering.evidence import EvidenceScorer

    emb = Counting()
    scorer = EvidenceScorer.__new__(EvidenceScorer)
    scorer.embedder = emb
    assert scorer._bank("calibration", "zh").shape == (20, 384) and scorer._bank("bar-words", "en").shape == (30, 384)
    assert emb.texts == 0
