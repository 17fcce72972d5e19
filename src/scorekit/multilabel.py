"""Multi-label metrics (Wu & Zhou 2017): hamming loss, ranking losses, coverage."""
