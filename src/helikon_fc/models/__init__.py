"""Models: the `Model` protocol providers implement, and wrappers that work for any model."""

from .by_name import (
    PROVIDERS as PROVIDERS,
    Provider as Provider,
    ProviderNotInstalled as ProviderNotInstalled,
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
