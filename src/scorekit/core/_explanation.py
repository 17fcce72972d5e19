"""What ``scorekit explain`` says about a metric, kept on the metric's class."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SK", "Explanation", "sentences"]

SK = "scikit-learn's"
"""How explanations name scikit-learn as the reference implementation."""


@dataclass(frozen=True)
class Explanation:
    """What ``scorekit explain`` says about one metric, in plain text.

    A registered metric class carries its own as the class attribute
    ``explanation``, next to its docstring; :func:`scorekit.explain.explain`
    renders it with the registry metadata and a worked example.

    Parameters
    ----------
    definition : str
        What the metric measures, in words.
    formula : str
        The formula in plain text, shown on one line as written.
    convention : str
        The choices scorekit makes where the literature differs (averaging,
        ties, zero division, what the state keeps).
    reference : str
        The reference implementation or paper the values agree with.

    Examples
    --------
    >>> entry = Explanation(
    ...     definition="The fraction of correct predictions.",
    ...     formula="accuracy = correct / n",
    ...     convention="Unweighted.",
    ...     reference="scikit-learn's accuracy_score.",
    ... )
    >>> entry.formula
    'accuracy = correct / n'
    """

    definition: str
    formula: str
    convention: str
    reference: str


def sentences(*parts: str) -> str:
    """Sentences joined into one paragraph (the text of an explanation field).

    Examples
    --------
    >>> sentences("Counts are weighted.", "Empty input raises.")
    'Counts are weighted. Empty input raises.'
    """
    return " ".join(parts)
