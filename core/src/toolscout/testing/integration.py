"""`IntegrationConformance`: the standard tests of an agent-framework integration.

An integration puts toolscout's search tool into a framework's agent (LangChain's
`create_agent`, PydanticAI, the OpenAI Agents SDK, yours). Its test module subclasses
`IntegrationConformance` and supplies a `model` fixture and three small adapter methods;
the suite then runs the framework's real agent, with the framework's real model class,
against a local server that speaks OpenAI's wire format (`toolscout.testing.wire`), and
asserts on what each model request carried:

    import pytest
    from toolscout.testing.integration import IntegrationConformance

    class TestMyFramework(IntegrationConformance):
        @pytest.fixture
        def model(self, server):
            return MyChatModel("gpt-test", base_url=server.base_url, api_key="test-key")

        def make_tool(self, function, name=None, description=None):
            return my_framework.tool(function, name=name, description=description)

        def run(self, model, tools, prompt, *, instructions=None, **options):
            search = MyToolSearch(tools, **options)       # options: ScoutOptions keywords
            agent = my_framework.Agent(model, tools=search, instructions=instructions)
            return agent.run(prompt).text

        async def run_async(self, model, tools, prompt, *, instructions=None, **options):
            ...                                            # the same, awaited

`tools` is a list of what `make_tool` returned, or a `toolscout.ToolRegistry` (a catalog
file with one handler); `options` are `toolscout.integration.ScoutOptions` keywords
(`index`, `pinned`, `auto`, `metadata`, `max_loaded_tools`, `search_tool_name`). A framework
that speaks the Responses API overrides the `wire` fixture with `wire.Responses()` (or
parametrises it over both formats). As with the backend suite, a standard test may only be
overridden to mark it `xfail` with a reason; the guard test fails otherwise.

Needs pytest and the OpenTelemetry SDK (the `testing` extra); each test's docstring says
what a failure means.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Literal

import pytest

from toolscout import ToolRegistry
from toolscout.auto import AutoThreshold
from toolscout.config import DEFAULT_SYSTEM_MESSAGE_SUFFIX
from toolscout.testing.guard import overridden_without_xfail
from toolscout.testing.metrics import prompt_token_points, recorded_metrics, tool_token_points
from toolscout.testing.reference import ReferenceToolIndex
from toolscout.testing.support import assert_wire_safe, eval_data
from toolscout.testing.wire import ChatCompletions, Reply, Wire, WireServer, serve

__all__ = ["GUARD_TEST", "SAMPLE_TOOLS", "IntegrationConformance", "overrides_without_xfail"]

#: The name of the guard test, which a subclass must not override at all.
GUARD_TEST = "test_standard_tests_are_not_overridden_without_xfail"


# --- The sample tools, as plain functions: `make_tool` turns each into the framework's ---


def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Get the current weather for a city.

    Args:
        city: City name, e.g. "Lisbon".
        unit: Temperature unit.
    """
    return f"18 degrees {unit} and sunny in {city}"


def convert_currency(amount: float, source: str, target: str) -> dict[str, Any]:
    """Convert an amount of money from one currency to another.

    Args:
        amount: The amount in the source currency.
        source: ISO code of the source currency, e.g. EUR.
        target: ISO code of the target currency, e.g. USD.
    """
    return {"amount": round(amount * 1.08, 2), "currency": target}


def send_email(to: str, body: str) -> str:
    """Send an email message to one recipient."""
    return f"sent to {to}"


def create_event(title: str, start: str) -> str:
    """Create a calendar event with a title and a start time."""
    return f"created {title} at {start}"


def current_date() -> str:
    """Today's date (always available, no search needed)."""
    return "2026-12-02"


#: Five tools an assistant might carry; `current_date` is the one tests pin.
SAMPLE_TOOLS: tuple[Callable[..., Any], ...] = (
    get_weather,
    convert_currency,
    send_email,
    create_event,
    current_date,
)
SAMPLE_NAMES = [function.__name__ for function in SAMPLE_TOOLS]

#: Metadata the filter test attaches, by tool name.
NAMESPACES = {
    "get_weather": {"namespace": "travel"},
    "convert_currency": {"namespace": "finance"},
    "send_email": {"namespace": "office"},
    "create_event": {"namespace": "office"},
}
EVERYTHING = "weather currency email event"
BFCL = eval_data("bfcl", "tools.jsonl")


def overrides_without_xfail(cls: type) -> list[str]:
    """Standard tests that `cls` overrides (or removes) without an `xfail(reason=...)`."""
    return overridden_without_xfail(IntegrationConformance, cls, GUARD_TEST)


class IntegrationConformance:
    """Every standard integration test. Subclass it as `Test...`, give it a `model`
    fixture and the adapter methods `make_tool`, `run` and `run_async`."""

    #: The name the integration gives its search tool unless told otherwise.
    search_tool_name: ClassVar[str] = "tool_search"

    # --- what a subclass supplies --------------------------------------------------------

    def make_tool(
        self, function: Callable[..., Any], name: str | None = None, description: str | None = None
    ) -> Any:
        """The framework's tool for a plain function (with type hints and a docstring),
        under `name` and `description` when given."""
        raise NotImplementedError(f"{type(self).__name__} must define make_tool")

    def run(
        self,
        model: Any,
        tools: Any,
        prompt: str,
        *,
        instructions: str | None = None,
        **options: Any,
    ) -> str:
        """One run of the framework's agent on `prompt`: `tools` (a list of `make_tool`
        results, or a `ToolRegistry`) behind the integration built with `options`, the
        application's `instructions` as its system prompt; the final answer's text."""
        raise NotImplementedError(f"{type(self).__name__} must define run")

    async def run_async(
        self,
        model: Any,
        tools: Any,
        prompt: str,
        *,
        instructions: str | None = None,
        **options: Any,
    ) -> str:
        """`run`, through the framework's asynchronous entry point."""
        raise NotImplementedError(f"{type(self).__name__} must define run_async")

    # --- fixtures ------------------------------------------------------------------------

    @pytest.fixture
    def server(self) -> Iterator[WireServer]:
        """The local server the `model` fixture points the framework's client at."""
        yield from serve()

    @pytest.fixture
    def wire(self) -> Wire:
        """The format the framework's model speaks: Chat Completions unless overridden."""
        return ChatCompletions()

    @pytest.fixture
    def index(self) -> Any:
        """The index searches run on: core's reference index (no backend needed)."""
        return ReferenceToolIndex()

    @pytest.fixture
    def tools(self) -> list[Any]:
        return [self.make_tool(function) for function in SAMPLE_TOOLS]

    # --- the suite -----------------------------------------------------------------------

    def test_standard_tests_are_not_overridden_without_xfail(self) -> None:
        """Failure: this class overrides (or deletes) a standard integration test without
        marking the override `@pytest.mark.xfail(reason="...")`. Remove the override, or
        mark it xfail saying why the framework cannot meet that part of the contract."""
        bad = overrides_without_xfail(type(self))
        assert not bad, (
            f"{type(self).__name__} overrides standard tests without "
            f'@pytest.mark.xfail(reason="..."): {", ".join(bad)}'
        )

    def test_a_search_binds_the_found_tool_and_its_result_reaches_the_model(
        self, server: WireServer, wire: Wire, model: Any, tools: list[Any], index: Any
    ) -> None:
        """Failure: the first request did not carry only the search tool and the pinned
        one (with toolscout's instructions after the application's), or the tool a search
        found was not offered next, or its result did not reach the model."""
        search = self.search_tool_name
        server.script(
            wire.calls(("s1", search, {"query": "weather city"})),
            wire.calls(("c1", "get_weather", {"city": "Lisbon"})),
            wire.answer("Sunny in Lisbon."),
        )
        output = self.run(
            model,
            tools,
            "Weather in Lisbon?",
            instructions="You are terse.",
            index=index,
            pinned=["current_date"],
            auto=False,
        )

        assert output == "Sunny in Lisbon."
        assert [path for path, _ in server.requests] == [wire.path] * 3
        first, second, third = server.bodies
        assert sorted(wire.tool_names(first)) == sorted(["current_date", search])
        assert wire.tool_definition(first, search)["parameters"]["required"] == ["query"]
        assert wire.instructions(first) == f"You are terse.\n\n{DEFAULT_SYSTEM_MESSAGE_SUFFIX}"
        assert {"current_date", search, "get_weather"} <= set(wire.tool_names(second))
        assert "convert_currency" not in wire.tool_names(second)
        assert wire.results(second)["s1"].startswith("Found ")
        assert "get_weather" in wire.results(second)["s1"]
        assert wire.results(third)["c1"] == "18 degrees celsius and sunny in Lisbon"

    def test_a_found_tools_call_is_recorded_as_a_use_and_nothing_of_its_arguments(
        self, server: WireServer, wire: Wire, model: Any, tools: list[Any], index: Any
    ) -> None:
        """Failure: the call of a tool a search had found was not recorded as a successful
        use with the query that found it (learning from use, docs/learning.md), or the
        call's arguments reached the usage store."""
        from toolscout.learning import learner_of

        server.script(
            wire.calls(("s1", self.search_tool_name, {"query": "weather city"})),
            wire.calls(("c1", "get_weather", {"city": "Secret-Town"})),
            wire.answer("Sunny."),
        )
        self.run(model, tools, "Weather?", index=index, auto=False)

        learner = learner_of(index)
        assert learner is not None, "an in-process index learns from use by default"
        uses = learner.store.uses("default")
        assert [(use.tool, use.success, use.query) for use in uses] == [
            ("get_weather", True, "weather city")
        ]
        assert "Secret-Town" not in repr(uses)

    def test_a_tool_no_search_loaded_does_not_run_until_a_search_loads_it(
        self, server: WireServer, wire: Wire, model: Any, tools: list[Any], index: Any
    ) -> None:
        """Failure: a tool the model was never offered ran (or the run ended) when the
        model called it by name, or it stayed unavailable after a search loaded it."""
        search = self.search_tool_name
        server.script(
            wire.calls(("c1", "send_email", {"to": "a@b.c", "body": "hi"})),
            wire.calls(("s1", search, {"query": "select:send_email"})),
            wire.calls(("c2", "send_email", {"to": "a@b.c", "body": "hi"})),
            wire.answer("Sent."),
        )
        self.run(model, tools, "Email a@b.c", index=index, auto=False)

        refused = wire.results(server.bodies[1])["c1"]
        assert "send_email" in refused and refused != "sent to a@b.c"
        assert wire.results(server.bodies[2])["s1"].startswith("Loaded 1 tool(s)")
        assert sorted(wire.tool_names(server.bodies[2])) == sorted([search, "send_email"])
        assert wire.results(server.bodies[3])["c2"] == "sent to a@b.c"

    def test_parallel_searches_load_every_found_tool_and_the_cap_drops_the_oldest(
        self, server: WireServer, wire: Wire, model: Any, tools: list[Any], index: Any
    ) -> None:
        """Failure: two searches in one model turn did not both load their tools, or
        `max_loaded_tools` let more tools stay loaded than it allows, or dropped a newer
        one instead of the oldest."""
        search = self.search_tool_name
        server.script(
            wire.calls(
                ("s1", search, {"query": "weather city", "max_results": 1}),
                ("s2", search, {"query": "calendar event", "max_results": 1}),
            ),
            wire.calls(("s3", search, {"query": "select:send_email"})),
            wire.answer("Ready."),
        )
        self.run(
            model, tools, "Weather and a meeting.", index=index, auto=False, max_loaded_tools=2
        )
        second, third = server.bodies[1:]
        assert sorted(wire.tool_names(second)) == sorted([search, "get_weather", "create_event"])
        assert sorted(wire.tool_names(third)) == sorted([search, "create_event", "send_email"])

    def test_an_asynchronous_run_searches_and_calls_the_same_way(
        self, server: WireServer, wire: Wire, model: Any, tools: list[Any], index: Any
    ) -> None:
        """Failure: the framework's asynchronous entry point does not offer the found tool,
        or does not run it, as the synchronous one does."""
        search = self.search_tool_name
        server.script(
            wire.calls(("s1", search, {"query": "weather"})),
            wire.calls(("c1", "get_weather", {"city": "Porto", "unit": "fahrenheit"})),
            wire.answer("Warm."),
        )
        output = asyncio.run(
            self.run_async(model, tools, "Porto?", index=index, pinned=["current_date"], auto=False)
        )
        assert output == "Warm."
        first, second, third = server.bodies
        assert sorted(wire.tool_names(first)) == sorted(["current_date", search])
        assert "get_weather" in wire.tool_names(second)
        assert wire.results(third)["c1"] == "18 degrees fahrenheit and sunny in Porto"

    def test_concurrent_runs_keep_their_own_found_tools(
        self, server: WireServer, wire: Wire, model: Any, tools: list[Any], index: Any
    ) -> None:
        """Failure: two runs at once of one agent shared what they found: a tool one run's
        search loaded was offered to the other."""
        search = self.search_tool_name

        def reply(body: dict[str, Any]) -> dict[str, Any]:
            text = json.dumps(body)
            if "Loaded " in text:
                return wire.answer("done")
            wanted = "select:get_weather" if "weather" in text else "select:send_email"
            return wire.calls(("s", search, {"query": wanted}))

        server.script(*([reply] * 4))

        async def both() -> None:
            await asyncio.gather(
                self.run_async(model, tools, "weather please", index=index, auto=False),
                self.run_async(model, tools, "an email please", index=index, auto=False),
            )

        asyncio.run(both())
        after = [b for b in server.bodies if "Loaded " in json.dumps(b)]
        offered = sorted(sorted(wire.tool_names(body)) for body in after)
        assert offered == [
            sorted([search, "get_weather"]),
            sorted([search, "send_email"]),
        ]

    # --- auto mode -----------------------------------------------------------------------

    def test_auto_mode_below_the_threshold_sends_every_tool_and_no_instructions(
        self, server: WireServer, wire: Wire, model: Any, tools: list[Any], index: Any
    ) -> None:
        """Failure: with few tools (auto mode's default), the integration still hid tools
        behind a search or added its instructions."""
        server.script(wire.answer("Hello."))
        self.run(model, tools, "Hi.", instructions="Hi.", index=index)
        body = server.bodies[0]
        assert wire.tool_names(body) == SAMPLE_NAMES
        assert wire.instructions(body) == "Hi."

    def test_auto_mode_searches_above_thirty_tools(
        self, server: WireServer, wire: Wire, model: Any, index: Any
    ) -> None:
        """Failure: auto mode's default tool count (30) is not where search turns on: 30
        tools must all be sent, 31 must be replaced by the search tool alone."""
        for count, expected in ((30, 30), (31, 1)):
            server.requests.clear()
            server.script(wire.answer("Hello."))
            self.run(model, self._many_tools(count), "Hi.", index=index)
            sent = wire.tool_names(server.bodies[0])
            assert len(sent) == expected
            assert (sent == [self.search_tool_name]) is (expected == 1)

    def _many_tools(self, count: int) -> list[Any]:
        made = []
        for i in range(count):

            def handler(x: str) -> str:
                return x

            made.append(self.make_tool(handler, name=f"task_{i}", description=f"Task number {i}."))
        return made

    def test_auto_mode_by_tokens(
        self, server: WireServer, wire: Wire, model: Any, tools: list[Any], index: Any
    ) -> None:
        """Failure: a token threshold did not decide: 50 tokens of definitions must turn
        search on, 100,000 must leave every tool in the request."""
        server.script(wire.answer("a"), wire.answer("b"))
        low = AutoThreshold(tools=None, tokens=50)
        high = AutoThreshold(tools=None, tokens=100_000)
        self.run(model, tools, "Hi.", index=index, auto=low)
        self.run(model, tools, "Hi.", index=index, auto=high)
        assert wire.tool_names(server.bodies[0]) == [self.search_tool_name]
        assert wire.tool_names(server.bodies[1]) == SAMPLE_NAMES

    def test_a_tool_named_like_the_search_tool_is_refused_until_the_search_tool_is_renamed(
        self, server: WireServer, wire: Wire, model: Any, index: Any
    ) -> None:
        """Failure: a tool of the application's named like the search tool was silently
        shadowed (or shadowed it) instead of raising a ValueError that names the
        `search_tool_name` option; or renaming the search tool did not resolve it."""

        def tool_search(query: str) -> str:
            """Search the web."""
            return query

        clash = [self.make_tool(tool_search)]
        with pytest.raises(ValueError, match="search_tool_name"):
            self.run(model, clash, "Hi.", index=index, auto=False)
        server.requests.clear()
        server.script(wire.answer("Hi."))
        self.run(model, clash, "Hi.", index=index, auto=False, search_tool_name="find_tools")
        assert wire.tool_names(server.bodies[0]) == ["find_tools"]

    # --- filters and telemetry -----------------------------------------------------------

    def test_the_search_tool_lists_the_namespaces_and_a_filter_narrows_the_search(
        self, server: WireServer, wire: Wire, model: Any, tools: list[Any], index: Any
    ) -> None:
        """Failure: the search tool's definition does not list the catalog's namespaces
        or take a `namespace` filter, or a filtered search found tools outside it."""
        search = self.search_tool_name
        server.script(
            wire.calls(("s1", search, {"query": EVERYTHING, "namespace": ["office"]})),
            wire.calls(("s2", search, {"query": EVERYTHING})),
            wire.answer("Done."),
        )
        self.run(model, tools, "Plan my week.", index=index, auto=False, metadata=NAMESPACES)

        first, second, third = server.bodies
        definition = wire.tool_definition(first, search)
        assert "Namespaces: finance, office, travel." in definition["description"]
        assert definition["parameters"]["properties"]["namespace"]["type"] == "array"
        assert definition["parameters"]["required"] == ["query"]
        assert sorted(wire.tool_names(second)) == sorted([search, "send_email", "create_event"])
        assert "get_weather" not in wire.results(second)["s1"]
        assert {"get_weather", "convert_currency"} <= set(wire.tool_names(third))

    def test_each_model_request_records_its_tool_tokens_sent_and_in_the_catalog(
        self, server: WireServer, wire: Wire, model: Any, tools: list[Any], index: Any
    ) -> None:
        """Failure: the `toolscout.request.tool_tokens` metric was not recorded once per
        model request with what was sent and what the whole catalog would have cost, or
        sending only the search tool and the found ones did not cost less."""
        search = self.search_tool_name
        server.script(
            wire.calls(("s1", search, {"query": "weather city"})),
            wire.calls(("c1", "get_weather", {"city": "Lisbon"})),
            wire.answer("Sunny."),
        )
        with recorded_metrics() as reader:
            self.run(model, tools, "Weather in Lisbon?", index=index, auto=False)
            points = tool_token_points(reader)
        sent, catalog = points["sent"], points["catalog"]
        assert catalog.count == 3 and catalog.min == catalog.max  # the same catalog each time
        # The search tool alone, then with get_weather twice; each less than the catalog.
        assert sent.count == 3 and sent.sum == sent.min + 2 * sent.max
        assert 0 < sent.min < sent.max < catalog.min

    def test_below_the_auto_threshold_the_tokens_sent_are_the_catalogs(
        self, server: WireServer, wire: Wire, model: Any, tools: list[Any], index: Any
    ) -> None:
        """Failure: with every tool sent (auto mode, few tools), the tokens recorded as
        sent differ from the catalog's."""
        server.script(wire.answer("Hi."))
        with recorded_metrics() as reader:
            self.run(model, tools, "Hi.", index=index)
            points = tool_token_points(reader)
        assert points["sent"].count == 1
        assert points["sent"].sum == points["catalog"].sum > 0

    def test_each_model_reply_records_the_cached_prompt_tokens_it_reports(
        self, server: WireServer, wire: Wire, model: Any, tools: list[Any], index: Any
    ) -> None:
        """Failure: the `toolscout.request.prompt_tokens` metric did not record each
        reply's prompt tokens and the part of them the provider read from its cache."""
        search = self.search_tool_name
        server.script(
            wire.cached(wire.calls(("s1", search, {"query": "weather city"})), 0),
            wire.cached(wire.calls(("c1", "get_weather", {"city": "Lisbon"})), 64),
            wire.cached(wire.answer("Sunny."), 96),
        )
        with recorded_metrics() as reader:
            self.run(model, tools, "Weather in Lisbon?", index=index, auto=False)
            points = prompt_token_points(reader)
        assert points["input"].count == 3 and points["input"].sum == 300
        assert points["cache_read"].count == 3 and points["cache_read"].sum == 160

    # --- names on the wire and the catalog way in -------------------------------------------

    def test_colliding_dotted_names_go_out_wire_safe_and_calls_reach_the_right_tool(
        self, server: WireServer, wire: Wire, model: Any, index: Any
    ) -> None:
        """Failure: a tool name OpenAI refuses (`math.gcd`) went out as it is, or two tools
        whose safe names collide (`math.gcd`, `math_gcd`) were confused: the model's call
        ran the wrong one."""
        ran: list[str] = []

        def gcd_tool(name: str) -> Any:
            def run(a: int, b: int) -> str:
                ran.append(name)
                return f"{name}: 6"

            return self.make_tool(run, name=name, description=f"Greatest common divisor ({name}).")

        tools = [gcd_tool(n) for n in ("math.gcd", "math_gcd", "physics.calculate_cone_mass")]
        search = self.search_tool_name
        server.script(
            wire.calls(("s1", search, {"query": "greatest common divisor", "max_results": 3})),
            _offered(wire, "math_gcd_", {"a": 12, "b": 18}),  # math.gcd's: math_gcd is taken
            wire.answer("6"),
        )
        output = self.run(model, tools, "gcd of 12 and 18?", index=index, auto=False)

        assert output == "6" and ran == ["math.gcd"]
        for body in server.bodies:
            assert_wire_safe(wire.tool_names(body))
        assert "physics_calculate_cone_mass" in wire.results(server.bodies[1])["s1"]
        assert wire.results(server.bodies[2])["c1"] == "math.gcd: 6"

    def test_a_catalog_file_and_one_handler_are_a_way_in(
        self, server: WireServer, wire: Wire, model: Any, index: Any
    ) -> None:
        """Failure: a `ToolRegistry` (BFCL's 1,853 tools from one file, one handler for
        all) did not turn search on, or a found tool's call did not reach the handler
        under the tool's own name."""
        if not BFCL.exists():
            pytest.skip(f"no BFCL tools at {BFCL} (set TOOLSCOUT_EVAL_DATA)")
        called: list[tuple[str, dict[str, Any]]] = []

        def handler(name: str, arguments: dict[str, Any]) -> str:
            called.append((name, arguments))
            return json.dumps({"gcd": 6})

        registry = ToolRegistry()
        registry.add_catalog(BFCL, handler)
        server.script(
            # BFCL has a tool named tool_search: the search tool takes another name.
            wire.calls(("s1", "find_tools", {"query": "select:math.gcd,math_gcd"})),
            _offered(wire, "math_gcd_", {"num1": 12, "num2": 18}),
            wire.answer("6"),
        )
        output = self.run(model, registry, "gcd?", index=index, search_tool_name="find_tools")

        assert output == "6"
        assert called == [("math.gcd", {"num1": 12, "num2": 18})]
        assert wire.tool_names(server.bodies[0]) == ["find_tools"]  # auto mode: search is on
        for body in server.bodies:
            assert_wire_safe(wire.tool_names(body))


def _offered(wire: Wire, prefix: str, arguments: dict[str, Any]) -> Reply:
    """A model turn calling the one offered tool whose name starts with `prefix` (as a
    model picks among the tools a request offers)."""

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        names = [n for n in wire.tool_names(body) if n.startswith(prefix)]
        assert len(names) == 1, wire.tool_names(body)
        return wire.calls(("c1", names[0], arguments))

    return reply
