"""A small random number generator whose whole state is one integer, so a battle saves
and restores it exactly (xorshift64*, seeded through splitmix64)."""
from __future__ import annotations

MASK = (1 << 64) - 1


def _splitmix(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


class Rng:
    def __init__(self, seed: int = 0, *, state: int | None = None):
        self.state = state if state is not None else (_splitmix(int(seed) & MASK) or 1)

    def next(self) -> int:
        x = self.state
        x ^= x >> 12
        x ^= (x << 25) & MASK
        x ^= x >> 27
        self.state = x
        return (x * 0x2545F4914F6CDD1D) & MASK

    def random(self) -> float:
        """Uniform in [0, 1)."""
        return (self.next() >> 11) / float(1 << 53)

    def below(self, n: int) -> int:
        """Uniform in 0 .. n - 1."""
        return int(self.random() * n)

    def percent(self, chance: int) -> bool:
        """True with `chance` percent probability."""
        return self.below(100) < chance
