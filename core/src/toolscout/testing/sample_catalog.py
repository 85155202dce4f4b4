"""A small, realistic tool catalog built into the conformance suite for its ranking floors.

Thirty tools across chat, code hosting, issue tracking, calendars, files, payments, weather
and more, written the way real MCP servers and SaaS APIs describe their tools. The ranking
floors search it: every exact name must rank its own tool first, and each word listed in
`DESCRIPTION_WORDS` / `PARAMETER_WORDS` (which occurs in that one tool only) must find it.
"""

from __future__ import annotations

from typing import Any

from toolscout.types import ToolReference

__all__ = ["DESCRIPTION_WORDS", "PARAMETER_WORDS", "SAMPLE_TOOLS", "sample_tools"]


def _tool(
    name: str, description: str, params: dict[str, str], server: str, required: tuple[str, ...]
) -> ToolReference:
    properties: dict[str, Any] = {
        key: {"type": "string", "description": text} for key, text in params.items()
    }
    schema = {"type": "object", "properties": properties, "required": list(required)}
    return ToolReference(name, description, schema, {"server": server})


SAMPLE_TOOLS: tuple[ToolReference, ...] = (
    _tool(
        "slack_post_message",
        "Post a message to a Slack channel as the bot user.",
        {"channel": "Channel id or name, e.g. #general", "text": "Message text in mrkdwn"},
        "slack",
        ("channel", "text"),
    ),
    _tool(
        "slack_add_reaction",
        "Add an emoji reaction to a message in a channel.",
        {"channel": "Channel id", "timestamp": "Message timestamp", "name": "Reaction name"},
        "slack",
        ("channel", "timestamp", "name"),
    ),
    _tool(
        "slack_list_channels",
        "List the public channels in the workspace with their member counts.",
        {"cursor": "Pagination cursor from a previous call"},
        "slack",
        (),
    ),
    _tool(
        "github_create_issue",
        "Open a new issue in a GitHub repository with a title, body and labels.",
        {"repo": "owner/name of the repository", "title": "Issue title", "body": "Markdown"},
        "github",
        ("repo", "title"),
    ),
    _tool(
        "github_list_pull_requests",
        "List pull requests of a repository, filtered by state and base branch.",
        {"repo": "owner/name", "state": "open, closed or all", "base": "Base branch name"},
        "github",
        ("repo",),
    ),
    _tool(
        "github_merge_pull_request",
        "Merge a pull request using the merge, squash or rebase method.",
        {"repo": "owner/name", "number": "Pull request number", "method": "merge method"},
        "github",
        ("repo", "number"),
    ),
    _tool(
        "github_get_file_contents",
        "Read the contents of a file or directory from a repository at a given ref.",
        {"repo": "owner/name", "path": "File path", "ref": "Branch, tag or commit sha"},
        "github",
        ("repo", "path"),
    ),
    _tool(
        "jira_create_ticket",
        "Create a Jira ticket in a project with a summary, priority and assignee.",
        {"project_key": "Project key such as OPS", "summary": "One-line summary"},
        "jira",
        ("project_key", "summary"),
    ),
    _tool(
        "jira_transition_ticket",
        "Move a Jira ticket through its workflow, for example from In Progress to Done.",
        {"ticket_id": "Ticket key such as OPS-12", "transition": "Target workflow status"},
        "jira",
        ("ticket_id", "transition"),
    ),
    _tool(
        "calendar_create_event",
        "Schedule a calendar event with attendees, a start time and a duration.",
        {"title": "Event title", "start": "ISO 8601 start time", "attendees": "Emails"},
        "calendar",
        ("title", "start"),
    ),
    _tool(
        "calendar_find_free_slots",
        "Find times when all the given people are free, within working hours.",
        {"attendees": "Emails to check", "window_days": "How many days ahead to search"},
        "calendar",
        ("attendees",),
    ),
    _tool(
        "calendar_delete_event",
        "Cancel and delete a calendar event, notifying the attendees.",
        {"event_id": "Event id"},
        "calendar",
        ("event_id",),
    ),
    _tool(
        "drive_upload_file",
        "Upload a local file to cloud storage and return a shareable link.",
        {"local_path": "Path of the file to upload", "folder_id": "Destination folder"},
        "drive",
        ("local_path",),
    ),
    _tool(
        "drive_search_files",
        "Search documents and spreadsheets by title or full text.",
        {"query": "Search terms", "mime_type": "Restrict to one file type"},
        "drive",
        ("query",),
    ),
    _tool(
        "drive_share_file",
        "Share a file with collaborators as viewer, commenter or editor.",
        {"file_id": "File id", "email": "Collaborator email", "role": "Permission role"},
        "drive",
        ("file_id", "email"),
    ),
    _tool(
        "stripe_create_invoice",
        "Create a draft invoice for a customer and add pending line items.",
        {"customer_id": "Stripe customer id", "due_days": "Days until payment is due"},
        "stripe",
        ("customer_id",),
    ),
    _tool(
        "stripe_refund_payment",
        "Refund a charge in full or in part and return the refund status.",
        {"charge_id": "Charge id", "amount_cents": "Amount to refund, in cents"},
        "stripe",
        ("charge_id",),
    ),
    _tool(
        "stripe_list_subscriptions",
        "List active subscriptions with their plan, renewal date and billing cycle.",
        {"status": "active, past_due or canceled"},
        "stripe",
        (),
    ),
    _tool(
        "weather_current_conditions",
        "Current temperature, humidity and wind for a city or coordinates.",
        {"location": "City name or lat,lon", "units": "metric or imperial"},
        "weather",
        ("location",),
    ),
    _tool(
        "weather_daily_forecast",
        "Seven-day forecast with precipitation probability and UV index.",
        {"location": "City name or lat,lon", "days": "Number of days, 1 to 7"},
        "weather",
        ("location",),
    ),
    _tool(
        "weather_severe_alerts",
        "Active government warnings for storms, floods and heatwaves in a region.",
        {"region": "Country or state code"},
        "weather",
        ("region",),
    ),
    _tool(
        "gmail_send_email",
        "Send an email with optional attachments from the user's mailbox.",
        {"to": "Recipient addresses", "subject": "Subject line", "body": "Plain text body"},
        "gmail",
        ("to", "subject"),
    ),
    _tool(
        "gmail_search_threads",
        "Search the mailbox for conversations matching Gmail query syntax.",
        {"q": "Gmail search query such as from:alice newer_than:7d"},
        "gmail",
        ("q",),
    ),
    _tool(
        "maps_get_directions",
        "Driving, walking or transit directions between two places with travel time.",
        {"origin": "Start address", "destination": "End address", "mode": "Travel mode"},
        "maps",
        ("origin", "destination"),
    ),
    _tool(
        "translate_text",
        "Translate text between languages and detect the source language.",
        {"text": "Text to translate", "target_language": "ISO 639-1 code"},
        "translate",
        ("text", "target_language"),
    ),
    _tool(
        "currency_convert",
        "Convert an amount between currencies at today's exchange rate.",
        {"amount": "Amount", "from_currency": "ISO 4217 code", "to_currency": "ISO 4217 code"},
        "finance",
        ("amount", "from_currency", "to_currency"),
    ),
    _tool(
        "stocks_get_quote",
        "Latest share price, daily change and volume for a ticker symbol.",
        {"symbol": "Ticker symbol such as AAPL"},
        "finance",
        ("symbol",),
    ),
    _tool(
        "k8s_scale_deployment",
        "Scale a Kubernetes deployment to the given number of replicas.",
        {"namespace": "Namespace", "deployment": "Deployment name", "replicas": "Pod count"},
        "kubernetes",
        ("deployment", "replicas"),
    ),
    _tool(
        "db_run_sql_query",
        "Run a read-only SQL query against the analytics warehouse and return rows.",
        {"sql": "SELECT statement", "limit": "Maximum rows to return"},
        "database",
        ("sql",),
    ),
    _tool(
        "notes_create_note",
        "Write a note to the personal notebook, tagged for later recall.",
        {"content": "Note body in markdown", "tags": "Comma-separated tags"},
        "notes",
        ("content",),
    ),
)

#: Words that occur in the description of one sample tool only (never in its name).
DESCRIPTION_WORDS: dict[str, str] = {
    "emoji": "slack_add_reaction",
    "squash": "github_merge_pull_request",
    "workflow": "jira_transition_ticket",
    "spreadsheets": "drive_search_files",
    "humidity": "weather_current_conditions",
    "precipitation": "weather_daily_forecast",
    "heatwaves": "weather_severe_alerts",
    "attachments": "gmail_send_email",
    "walking": "maps_get_directions",
    "kubernetes": "k8s_scale_deployment",
    "assignee": "jira_create_ticket",
    "warehouse": "db_run_sql_query",
    "notebook": "notes_create_note",
}

#: Words that occur in the parameters of one sample tool only (never in its name).
PARAMETER_WORDS: dict[str, str] = {
    "mrkdwn": "slack_post_message",
    "cursor": "slack_list_channels",
    "namespace": "k8s_scale_deployment",
    "imperial": "weather_current_conditions",
    "aapl": "stocks_get_quote",
}


def sample_tools() -> list[ToolReference]:
    """The sample catalog as a fresh list (the references themselves are immutable)."""
    return list(SAMPLE_TOOLS)
