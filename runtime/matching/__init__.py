"""Motion matching: databases built offline from a skeleton's clips (database_build), opened in
place (database) and searched exactly through their k-d tree (search), and the trajectories
whose springs predict the queries (trajectory); the loops in kernels."""
from .database import MotionDatabase
from .database_build import (MatchChannel, MatchChannelKind, MatchEntry, MatchEntryFlag,
                             MotionDatabaseSource, build_motion_database)
from .search import MatchQuery, MatchResult
from .search import search as search_motion_database
from .trajectory import Trajectory, TrajectoryGoal, trajectory_features
from .trajectory import advance as advance_trajectory

__all__ = ["MotionDatabase", "MatchChannel", "MatchChannelKind", "MatchEntry", "MatchEntryFlag",
           "MotionDatabaseSource", "build_motion_database", "MatchQuery", "MatchResult",
           "search_motion_database", "Trajectory", "TrajectoryGoal", "advance_trajectory",
           "trajectory_features"]
