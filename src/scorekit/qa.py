"""Question answering: SQuAD exact match and F1, as the official evaluation scripts compute them."""

__all__: list[str] = []
