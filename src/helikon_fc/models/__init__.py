"""Models: the `Model` protocol providers implement, and wrappers that work for any model."""

from .._public import claim as _claim
from .by_name import (
    PROVIDERS as PROVIDERS,
    Provider as Provider,
    ProviderNotInstalled as ProviderNotInstalled,
    has_api_key as has_api_key,
    model_from_name as model_from_name,
    split_model_name as split_model_name,
)
from .fallback import FallbackAttempt as FallbackAttempt, FallbackModel as FallbackModel
from .protocol import Model as Model, ModelError as ModelError, ModelStream as ModelStream
from .retry import (
    RETRYABLE as RETRYABLE,
    RetryAttempt as RetryAttempt,
    RetryingModel as RetryingModel,
    RetryPolicy as RetryPolicy,
)

__all__ = [
    "PROVIDERS",
    "RETRYABLE",
    "FallbackAttempt",
    "FallbackModel",
    "Model",
    "ModelError",
    "ModelStream",
    "Provider",
    "ProviderNotInstalled",
    "RetryAttempt",
    "RetryPolicy",
    "RetryingModel",
    "has_api_key",
    "model_from_name",
    "split_model_name",
]

_claim(__name__, globals(), __all__)
