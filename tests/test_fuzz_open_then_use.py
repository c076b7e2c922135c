"""Files that open can be used (tests/fuzz_files.py): for each kind, mutated good files with
the identity stamped again, opened, and used through every call of the kind, warnings as
errors. `python tests/fuzz_files.py --seconds 3600` runs the same campaign for an hour."""
import pytest

from fuzz_files import KINDS, campaign


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_file_that_opens_can_be_used(kind):
    tried, opened, findings = campaign(kind, trials=2500, seed=7)
    assert tried == 2500 and opened > 0
    assert not findings, f"{len(findings)} of {opened} opened files misbehaved:\n" + "\n".join(findings[:3])


def test_the_campaign_reaches_past_the_identity():
    """Without the identity stamped again nearly nothing would open: the reseal is what
    lets mutations reach the deep checks and the uses."""
    for kind in ("clip", "skeleton", "graph"):
        _, opened, _ = campaign(kind, trials=300, seed=3)
        assert opened >= 10, kind
