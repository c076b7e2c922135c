"""runtime.capi.__all__ lists exactly the complete functions, and each is what it says."""
import inspect
from pathlib import Path

import pytest

from runtime import capi

SPEC = Path(__file__).resolve().parents[2] / "shared" / "spec" / "functions.tsv"
FOUNDATION = {
    "maniGetVersion", "maniGetSimdBackend", "maniIsCpuBackendSupported", "maniCheckCpu",
    "maniHash64", "maniGetResultName", "maniDefaultBuilderDef", "maniCreateBuilder",
    "maniDestroyBuilder", "maniBuilder_GetMisuse", "maniBuildSkeleton", "maniBuilder_CopyBuilt",
    "maniBuilder_CopySkeletonOrder", "maniOpenSkeleton", "maniSkeleton_GetBoneCount",
    "maniSkeleton_GetIdentity", "maniSkeleton_GetParent", "maniSkeleton_GetSubtreeEnd",
    "maniSkeleton_GetRest", "maniSkeleton_GetBoneName", "maniSkeleton_FindBone",
    "maniSkeleton_GetPoseSize", "maniInitPose", "maniPose_GetBoneCount", "maniPose_GetLocal",
    "maniPose_SetLocal", "maniPose_ReadLocals", "maniPose_WriteLocals", "maniPose_SetRest",
    "maniPose_ComputeModel", "maniPose_IsModelCurrent", "maniPose_IsDifference",
    "maniPose_GetModel", "maniPose_ReadModels", "maniDecomposeAffine",
    "maniPose_GetModelTransform", "maniSkeleton_BlendPoses", "maniSkeleton_BuildMask",
    "maniSkeleton_ComputePoseDifference", "maniPose_AddLayers",
}


def test_foundation_is_complete():
    assert FOUNDATION <= set(capi.__all__)


def test_all_names_callables_without_stubs():
    for name in capi.__all__:
        fn = getattr(capi, name)
        assert callable(fn), name
        assert "NotImplementedError" not in inspect.getsource(fn), name


def test_names_are_spec_names_and_only_listed_ones_exist():
    if not SPEC.exists():
        pytest.skip("../shared/spec is absent (it is on the developers' machines only)")
    spec = {line.split("\t")[1].strip() for line in SPEC.read_text().splitlines()[1:] if line.strip()}
    assert len(spec) == 324
    assert set(capi.__all__) <= spec
    for name in spec:
        assert hasattr(capi, name) == (name in capi.__all__), name
