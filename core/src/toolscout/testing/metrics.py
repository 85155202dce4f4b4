"""toolscout's OpenTelemetry metrics, read back in tests.

Needs the OpenTelemetry SDK (`opentelemetry-sdk`, in the `testing` extra): an in-memory
reader is installed as toolscout's meter provider for the length of a `with` block.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from toolscout import telemetry

if TYPE_CHECKING:
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

__all__ = ["prompt_token_points", "recorded_metrics", "tool_token_points"]


@contextmanager
def recorded_metrics() -> Iterator[InMemoryMetricReader]:
    """An in-memory reader of everything toolscout records inside the block."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    reader = InMemoryMetricReader()
    telemetry.configure(meter_provider=MeterProvider(metric_readers=[reader]))
    try:
        yield reader
    finally:
        telemetry.configure()


def tool_token_points(reader: InMemoryMetricReader) -> dict[str, Any]:
    """The `toolscout.request.tool_tokens` data points, by type (`sent`, `catalog`)."""
    return _points_by(reader, "toolscout.request.tool_tokens", "toolscout.tool_tokens.type")


def prompt_token_points(reader: InMemoryMetricReader) -> dict[str, Any]:
    """The `toolscout.request.prompt_tokens` data points, by type (`input`, `cache_read`)."""
    return _points_by(reader, "toolscout.request.prompt_tokens", telemetry.PROMPT_TYPE)


def _points_by(reader: InMemoryMetricReader, metric_name: str, attribute: str) -> dict[str, Any]:
    """The data points of one metric, keyed by the value of one of their attributes."""
    data = reader.get_metrics_data()
    return {
        str((point.attributes or {}).get(attribute)): point
        for resource in (data.resource_metrics if data else ())
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == metric_name
        for point in metric.data.data_points
    }
