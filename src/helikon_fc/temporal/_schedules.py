"""The options the workflow schedules an activity with, per kind of call, from the run's `ActivityPolicy`."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from temporalio.common import RetryPolicy

if TYPE_CHECKING:
    from ._payloads import ActivityPolicy

__all__ = ["describe", "model_call", "user_code"]


def user_code(policy: ActivityPolicy) -> dict[str, Any]:
    """The options of an activity that runs user code (a tool, a hook, a guardrail): the tool timeout and attempts."""
    return _options(policy, policy.tool_timeout, policy.tool_attempts)


def model_call(policy: ActivityPolicy) -> dict[str, Any]:
    """The options of a model call's activity: the model timeout and attempts."""
    return _options(policy, policy.model_timeout, policy.model_attempts)


def describe(policy: ActivityPolicy) -> dict[str, Any]:
    """The options of the activity that describes an agent to the workflow (a minute, three tries: it runs no user
    code that could take longer, so it sends no heartbeats)."""
    return {
        "start_to_close_timeout": timedelta(seconds=60),
        "retry_policy": _retries(policy, 3),
    }


def _options(policy: ActivityPolicy, timeout: float, attempts: int) -> dict[str, Any]:
    return {
        "start_to_close_timeout": timedelta(seconds=timeout),
        "heartbeat_timeout": timedelta(seconds=policy.heartbeat_timeout),
        "retry_policy": _retries(policy, attempts),
    }


def _retries(policy: ActivityPolicy, attempts: int) -> RetryPolicy:
    return RetryPolicy(initial_interval=timedelta(seconds=policy.retry_interval), maximum_attempts=attempts)
