"""Drop-in modules: scorekit under the names and signatures of other libraries.

Each module of this package mirrors one library's API so that switching is a
change of import, and computes every value with scorekit's own metrics (a thin
translation of arguments and results, never a second implementation):

``scorekit.compat.sklearn``
    the functions of ``sklearn.metrics`` that scorekit computes, with
    scikit-learn's names, signatures and return types;

``scorekit.compat.pytrec_eval``
    ``RelevanceEvaluator(qrels, measures).evaluate(run)`` with pytrec_eval's
    nested result dict and trec_eval's measure names and default cutoffs;

``scorekit.compat.sacrebleu``
    ``corpus_bleu``, ``sentence_bleu``, chrF and TER with sacrebleu's argument
    order, 0-100 scores and score objects that print as sacrebleu's;

``scorekit.compat.ranx``
    ``Qrels``, ``Run`` and ``evaluate`` with ranx's metric names (its docstring
    says where ranx departs from trec_eval and which one scorekit follows).

Switching is a change of import::

    from scorekit.compat import sklearn as metrics   # was: from sklearn import metrics

A function or measure of the original library that scorekit does not compute
raises :class:`~scorekit.errors.ConfigError` naming it; nothing falls back to the
original library, which is never imported. Each module exposes ``NAMES``, a
mapping from the original name to the scorekit function it calls.

Nothing in scorekit imports this package: ``import scorekit`` does not load it.
"""
