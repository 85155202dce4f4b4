# ruff: noqa: E501
"""Source of the demo catalog `demo_tools.jsonl`: hand-written tool definitions.

The tools are written here as Python calls rather than raw JSON so that they can be
reviewed and edited one at a time; `python core/src/toolscout/data/_generate.py` rewrites
`demo_tools.jsonl` from them (one Anthropic-form tool per line). The definitions imitate
the public APIs of common services but are written for this project.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

Schema = dict[str, Any]

TOOLS: list[Schema] = []


def _schema(kind: str, description: str, **keywords: Any) -> Schema:
    schema: Schema = {"type": kind, "description": description}
    schema.update({key: value for key, value in keywords.items() if value is not None})
    return schema


def string(
    description: str,
    *,
    enum: Sequence[str] | None = None,
    fmt: str | None = None,
    default: str | None = None,
    pattern: str | None = None,
    max_length: int | None = None,
) -> Schema:
    """A string property."""
    return _schema(
        "string",
        description,
        enum=None if enum is None else list(enum),
        format=fmt,
        default=default,
        pattern=pattern,
        maxLength=max_length,
    )


def integer(
    description: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    default: int | None = None,
    enum: Sequence[int] | None = None,
) -> Schema:
    """An integer property."""
    return _schema(
        "integer",
        description,
        enum=None if enum is None else list(enum),
        minimum=minimum,
        maximum=maximum,
        default=default,
    )


def number(
    description: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    default: float | None = None,
) -> Schema:
    """A number property."""
    return _schema("number", description, minimum=minimum, maximum=maximum, default=default)


def boolean(description: str, *, default: bool | None = None) -> Schema:
    """A boolean property."""
    return _schema("boolean", description, default=default)


def array(
    items: Schema,
    description: str,
    *,
    min_items: int | None = None,
    max_items: int | None = None,
) -> Schema:
    """An array property whose elements follow `items`."""
    return _schema("array", description, items=items, minItems=min_items, maxItems=max_items)


def strings(
    description: str,
    *,
    enum: Sequence[str] | None = None,
    fmt: str | None = None,
    min_items: int | None = None,
    max_items: int | None = None,
) -> Schema:
    """An array of strings."""
    items: Schema = {"type": "string"}
    if enum is not None:
        items["enum"] = list(enum)
    if fmt is not None:
        items["format"] = fmt
    return array(items, description, min_items=min_items, max_items=max_items)


def obj(
    description: str,
    /,
    *,
    required: Sequence[str] = (),
    additional: Schema | bool | None = None,
    **properties: Schema,
) -> Schema:
    """An object property; with no `properties` it is a free-form map of `additional`."""
    schema: Schema = {"type": "object", "description": description}
    if properties:
        schema["properties"] = properties
    missing = [name for name in required if name not in properties]
    if missing:
        raise ValueError(f"{description!r}: required {missing} are not properties")
    if required:
        schema["required"] = list(required)
    if additional is not None:
        schema["additionalProperties"] = additional
    return schema


def tool(
    name: str, description: str, /, *, required: Sequence[str] = (), **properties: Schema
) -> None:
    """Add one tool to `TOOLS` in Anthropic form: name, description, input_schema."""
    if any(existing["name"] == name for existing in TOOLS):
        raise ValueError(f"tool {name!r} is defined twice")
    if not properties:
        raise ValueError(f"tool {name!r} has no parameters")
    missing = [key for key in required if key not in properties]
    if missing:
        raise ValueError(f"tool {name!r}: required {missing} are not among its parameters")
    input_schema: Schema = {"type": "object", "properties": properties}
    if required:
        input_schema["required"] = list(required)
    TOOLS.append({"name": name, "description": description, "input_schema": input_schema})



# --- Slack -----------------------------------------------------------------------------

SLACK_CHANNEL = string("Channel, private group or direct-message ID, e.g. C024BE91L. A #channel-name is resolved to its ID.")
SLACK_TS = string("Timestamp of the message, the `ts` value Slack returned when it was posted, e.g. 1712345678.000200.")
SLACK_CURSOR = string("Cursor from `next_cursor` of the previous page; omit it to start at the beginning.")

tool(
    "slack_send_message",
    "Posts a message to a Slack channel, private group or direct message. Pass thread_ts to reply inside a thread instead of posting to the channel.",
    required=["channel", "text"],
    channel=SLACK_CHANNEL,
    text=string("Message text in Slack mrkdwn (*bold*, _italic_, <https://example.com|links>, <@U123> mentions)."),
    thread_ts=string("Timestamp of the parent message when replying in a thread."),
    reply_broadcast=boolean("With thread_ts, also show the reply in the channel.", default=False),
    unfurl_links=boolean("Expand previews for links in the text.", default=True),
)
tool(
    "slack_update_message",
    "Edits the text of a message the bot or user posted earlier. Other people's messages cannot be edited.",
    required=["channel", "ts", "text"],
    channel=SLACK_CHANNEL,
    ts=SLACK_TS,
    text=string("New message text in Slack mrkdwn; it replaces the old text entirely."),
)
tool(
    "slack_delete_message",
    "Deletes a message from a channel or thread. Bots can delete only their own messages.",
    required=["channel", "ts"],
    channel=SLACK_CHANNEL,
    ts=SLACK_TS,
)
tool(
    "slack_schedule_message",
    "Schedules a message to be posted to a channel at a future time, up to 120 days ahead. Returns a scheduled_message_id that can be used to cancel it.",
    required=["channel", "text", "post_at"],
    channel=SLACK_CHANNEL,
    text=string("Message text in Slack mrkdwn."),
    post_at=integer("Unix timestamp (seconds) at which to post the message.", minimum=0),
    thread_ts=string("Timestamp of a parent message to post the scheduled reply into."),
)
tool(
    "slack_list_channels",
    "Lists the channels in the workspace that the app can see, with their IDs, names, topics and member counts.",
    types=string("Comma-separated channel types to include.", default="public_channel", pattern="^(public_channel|private_channel|mpim|im)(,(public_channel|private_channel|mpim|im))*$"),
    exclude_archived=boolean("Leave archived channels out of the list.", default=True),
    limit=integer("Maximum number of channels to return per page.", minimum=1, maximum=1000, default=200),
    cursor=SLACK_CURSOR,
)
tool(
    "slack_create_channel",
    "Creates a new public or private channel. Channel names must be lowercase, without spaces or periods, and at most 80 characters.",
    required=["name"],
    name=string("Name of the channel, e.g. proj-apollo-launch.", pattern="^[a-z0-9_-]{1,80}$"),
    is_private=boolean("Create a private channel instead of a public one.", default=False),
    description=string("Short description shown in the channel details."),
)
tool(
    "slack_invite_to_channel",
    "Invites one or more users to a channel. The caller must already be a member of the channel.",
    required=["channel", "users"],
    channel=SLACK_CHANNEL,
    users=strings("User IDs to invite, e.g. [\"U0G9QF9C6\", \"U1QNSQB9U\"].", min_items=1, max_items=1000),
)
tool(
    "slack_archive_channel",
    "Archives a channel: it becomes read-only and disappears from the channel list, but its history stays searchable.",
    required=["channel"],
    channel=SLACK_CHANNEL,
)
tool(
    "slack_set_channel_topic",
    "Sets the topic shown in a channel's header. The topic does not support formatting or links.",
    required=["channel", "topic"],
    channel=SLACK_CHANNEL,
    topic=string("New topic text; an empty string clears the topic.", max_length=250),
)
tool(
    "slack_get_channel_history",
    "Fetches the messages posted in a channel, newest first. Thread replies are not included; use slack_get_thread_replies for those.",
    required=["channel"],
    channel=SLACK_CHANNEL,
    oldest=string("Only return messages after this Unix timestamp, e.g. 1712000000."),
    latest=string("Only return messages before this Unix timestamp."),
    limit=integer("Maximum number of messages to return.", minimum=1, maximum=999, default=100),
    cursor=SLACK_CURSOR,
)
tool(
    "slack_get_thread_replies",
    "Returns a thread: the parent message followed by all its replies in chronological order.",
    required=["channel", "ts"],
    channel=SLACK_CHANNEL,
    ts=string("Timestamp of the thread's parent message."),
    limit=integer("Maximum number of messages to return.", minimum=1, maximum=1000, default=200),
)
tool(
    "slack_add_reaction",
    "Adds an emoji reaction to a message, as the authenticated user or bot.",
    required=["channel", "timestamp", "name"],
    channel=SLACK_CHANNEL,
    timestamp=SLACK_TS,
    name=string("Emoji name without colons, e.g. thumbsup, white_check_mark, eyes."),
)
tool(
    "slack_search_messages",
    "Searches messages across the workspace with Slack's search syntax. Requires a user token; bot tokens cannot search.",
    required=["query"],
    query=string("Search query; supports modifiers such as in:#general, from:@maria, has:link, before:2024-05-01."),
    sort=string("Sort results by relevance or by time.", enum=["score", "timestamp"], default="score"),
    sort_dir=string("Sort direction.", enum=["asc", "desc"], default="desc"),
    count=integer("Number of results per page.", minimum=1, maximum=100, default=20),
)
tool(
    "slack_get_user_profile",
    "Gets a user's profile: display name, real name, title, email, phone, time zone and status.",
    required=["user"],
    user=string("User ID, e.g. U0G9QF9C6."),
)
tool(
    "slack_lookup_user_by_email",
    "Finds the Slack user that owns an email address and returns their user ID and profile.",
    required=["email"],
    email=string("Email address registered to the user's Slack account.", fmt="email"),
)
tool(
    "slack_upload_file",
    "Uploads a local file and shares it in one or more channels, optionally with a comment or inside a thread.",
    required=["file_path"],
    file_path=string("Path of the local file to upload."),
    channels=strings("Channel IDs to share the file in; omit to upload without sharing."),
    title=string("Title shown above the file; defaults to the file name."),
    initial_comment=string("Message text to post along with the file."),
    thread_ts=string("Timestamp of a parent message to share the file as a thread reply."),
)
tool(
    "slack_set_user_status",
    "Sets the authenticated user's custom status, such as 'In a meeting' or 'Out sick', with an emoji and optional expiry.",
    required=["status_text"],
    status_text=string("Status text, up to 100 characters; an empty string clears the status.", max_length=100),
    status_emoji=string("Emoji shown with the status, with colons, e.g. :palm_tree:."),
    status_expiration=integer("Unix timestamp when the status is cleared; 0 keeps it until changed.", minimum=0, default=0),
)

# --- Microsoft Teams -------------------------------------------------------------------

TEAM_ID = string("ID of the team (the group ID), e.g. 02bd9fd6-8f93-4758-87c3-1fb73740a315.")
TEAMS_CHANNEL_ID = string("ID of the channel, e.g. 19:09fc54a3141a45d0bc769cf506d2e079@thread.skype.")

tool(
    "teams_send_channel_message",
    "Posts a new message to a channel in Microsoft Teams. HTML content can include mentions, links and simple formatting.",
    required=["team_id", "channel_id", "content"],
    team_id=TEAM_ID,
    channel_id=TEAMS_CHANNEL_ID,
    content=string("Body of the message."),
    content_type=string("Whether content is plain text or HTML.", enum=["text", "html"], default="text"),
    subject=string("Optional subject line shown above the message."),
    importance=string("Importance flag of the message.", enum=["normal", "high", "urgent"], default="normal"),
)
tool(
    "teams_reply_to_message",
    "Replies to an existing message in a Teams channel, adding the reply to its conversation thread.",
    required=["team_id", "channel_id", "message_id", "content"],
    team_id=TEAM_ID,
    channel_id=TEAMS_CHANNEL_ID,
    message_id=string("ID of the root message being replied to."),
    content=string("Body of the reply."),
    content_type=string("Whether content is plain text or HTML.", enum=["text", "html"], default="text"),
)
tool(
    "teams_list_channel_messages",
    "Lists the root messages of a Teams channel, newest first, without their replies.",
    required=["team_id", "channel_id"],
    team_id=TEAM_ID,
    channel_id=TEAMS_CHANNEL_ID,
    top=integer("Number of messages to return per page.", minimum=1, maximum=50, default=20),
)
tool(
    "teams_send_chat_message",
    "Sends a message in a one-on-one or group chat (not a channel).",
    required=["chat_id", "content"],
    chat_id=string("ID of the chat, e.g. 19:2da4c29f6d7041eca70b638b43d45437@thread.v2."),
    content=string("Body of the message."),
    content_type=string("Whether content is plain text or HTML.", enum=["text", "html"], default="text"),
)
tool(
    "teams_create_chat",
    "Starts a new one-on-one or group chat with the given people. A one-on-one chat that already exists is returned instead of duplicated.",
    required=["members"],
    members=strings("User principal names or user IDs of the people to add, besides the caller.", min_items=1),
    chat_type=string("oneOnOne for exactly one other person, group for more.", enum=["oneOnOne", "group"], default="group"),
    topic=string("Title of a group chat; not allowed for one-on-one chats."),
)
tool(
    "teams_list_teams",
    "Lists the teams the signed-in user is a member of, with their IDs and descriptions.",
    top=integer("Maximum number of teams to return.", minimum=1, maximum=999, default=100),
    include_archived=boolean("Include archived teams.", default=False),
)
tool(
    "teams_list_channels",
    "Lists the channels of a team, including their IDs, names, descriptions and membership type.",
    required=["team_id"],
    team_id=TEAM_ID,
    membership_type=string("Only list channels of this membership type.", enum=["standard", "private", "shared"]),
)
tool(
    "teams_create_channel",
    "Creates a channel in a team. Private and shared channels need at least one owner besides the caller.",
    required=["team_id", "display_name"],
    team_id=TEAM_ID,
    display_name=string("Channel name as shown in Teams, up to 50 characters.", max_length=50),
    description=string("Description of the channel's purpose."),
    membership_type=string("Who can see the channel.", enum=["standard", "private", "shared"], default="standard"),
    owners=strings("User IDs of owners, required for private and shared channels."),
)
tool(
    "teams_add_member",
    "Adds a user to a team as a member or owner.",
    required=["team_id", "user_id"],
    team_id=TEAM_ID,
    user_id=string("Azure AD object ID or user principal name of the user to add."),
    role=string("Role the user gets in the team.", enum=["member", "owner"], default="member"),
)
tool(
    "teams_create_online_meeting",
    "Creates a standalone Teams meeting and returns its join URL, dial-in details and meeting ID, without adding a calendar event.",
    required=["subject", "start_datetime", "end_datetime"],
    subject=string("Subject of the meeting."),
    start_datetime=string("Start time in ISO 8601 with offset, e.g. 2024-06-03T15:00:00+02:00.", fmt="date-time"),
    end_datetime=string("End time in ISO 8601 with offset.", fmt="date-time"),
    attendees=strings("Email addresses of attendees to add as participants.", fmt="email"),
    lobby_bypass=string("Who can skip the lobby and join directly.", enum=["organizer", "organization", "organizationAndFederated", "everyone"], default="organization"),
    record_automatically=boolean("Start recording when the meeting starts.", default=False),
)
tool(
    "teams_get_presence",
    "Gets a user's availability (Available, Busy, Away, DoNotDisturb, Offline) and current activity in Teams.",
    required=["user_id"],
    user_id=string("Azure AD object ID of the user, or 'me' for the signed-in user."),
)

# --- Discord ---------------------------------------------------------------------------

DISCORD_CHANNEL = string("Snowflake ID of the channel or thread, e.g. 1067465432131285004.")
GUILD_ID = string("Snowflake ID of the Discord server (guild).")

tool(
    "discord_send_message",
    "Sends a message to a Discord text channel or thread as the bot. Messages can be up to 2000 characters and may include embeds.",
    required=["channel_id"],
    channel_id=DISCORD_CHANNEL,
    content=string("Message text, up to 2000 characters; supports Discord markdown.", max_length=2000),
    embeds=array(
        obj(
            "A rich embed.",
            title=string("Embed title."),
            description=string("Embed body text."),
            url=string("Link opened when the title is clicked.", fmt="uri"),
            color=integer("Colour of the side bar as an RGB integer, e.g. 5814783.", minimum=0, maximum=16777215),
        ),
        "Up to 10 rich embeds.",
        max_items=10,
    ),
    reply_to_message_id=string("ID of a message in the same channel to reply to."),
    tts=boolean("Send as a text-to-speech message.", default=False),
)
tool(
    "discord_edit_message",
    "Edits a message previously sent by the bot, replacing its content.",
    required=["channel_id", "message_id", "content"],
    channel_id=DISCORD_CHANNEL,
    message_id=string("Snowflake ID of the message to edit."),
    content=string("New message text, up to 2000 characters.", max_length=2000),
)
tool(
    "discord_get_messages",
    "Reads recent messages from a channel. Use before or after with a message ID to page through older or newer history.",
    required=["channel_id"],
    channel_id=DISCORD_CHANNEL,
    limit=integer("Number of messages to return.", minimum=1, maximum=100, default=50),
    before=string("Return messages sent before this message ID."),
    after=string("Return messages sent after this message ID."),
)
tool(
    "discord_create_thread",
    "Starts a thread, either from an existing message or as a standalone thread in a text or forum channel.",
    required=["channel_id", "name"],
    channel_id=DISCORD_CHANNEL,
    name=string("Thread name, 1-100 characters.", max_length=100),
    message_id=string("Start the thread from this message; omit for a standalone thread."),
    auto_archive_duration=integer("Minutes of inactivity after which the thread is archived.", enum=[60, 1440, 4320, 10080], default=1440),
    private=boolean("Create a private thread visible only to invited members.", default=False),
)
tool(
    "discord_add_reaction",
    "Reacts to a message with a Unicode emoji or a custom server emoji.",
    required=["channel_id", "message_id", "emoji"],
    channel_id=DISCORD_CHANNEL,
    message_id=string("Snowflake ID of the message."),
    emoji=string("A Unicode emoji such as 👍, or a custom emoji as name:id, e.g. partyparrot:1012345678901234567."),
)
tool(
    "discord_create_channel",
    "Creates a channel in a server. Requires the Manage Channels permission.",
    required=["guild_id", "name"],
    guild_id=GUILD_ID,
    name=string("Channel name, 1-100 characters; text channel names are lowercased with dashes.", max_length=100),
    type=string("Kind of channel.", enum=["text", "voice", "announcement", "forum", "stage"], default="text"),
    topic=string("Channel topic, up to 1024 characters.", max_length=1024),
    parent_id=string("ID of the category to place the channel under."),
    nsfw=boolean("Mark the channel as age-restricted.", default=False),
)
tool(
    "discord_list_guild_members",
    "Lists members of a server with their nicknames, roles and join dates. Requires the Server Members intent.",
    required=["guild_id"],
    guild_id=GUILD_ID,
    limit=integer("Maximum number of members to return.", minimum=1, maximum=1000, default=100),
    after=string("Return members whose user ID is greater than this one, for paging."),
)
tool(
    "discord_add_role_to_member",
    "Gives a server member a role. The bot's highest role must be above the role being assigned.",
    required=["guild_id", "user_id", "role_id"],
    guild_id=GUILD_ID,
    user_id=string("Snowflake ID of the member."),
    role_id=string("Snowflake ID of the role."),
    reason=string("Reason recorded in the server's audit log."),
)
tool(
    "discord_ban_member",
    "Bans a user from a server and optionally deletes their recent messages.",
    required=["guild_id", "user_id"],
    guild_id=GUILD_ID,
    user_id=string("Snowflake ID of the user to ban."),
    delete_message_seconds=integer("Delete the user's messages from this many past seconds (up to 7 days).", minimum=0, maximum=604800, default=0),
    reason=string("Reason recorded in the server's audit log."),
)
tool(
    "discord_create_scheduled_event",
    "Creates a scheduled event in a server, held in a stage or voice channel or at an external location.",
    required=["guild_id", "name", "start_time", "entity_type"],
    guild_id=GUILD_ID,
    name=string("Name of the event, 1-100 characters.", max_length=100),
    start_time=string("Start time in ISO 8601, e.g. 2024-07-12T18:00:00Z.", fmt="date-time"),
    end_time=string("End time in ISO 8601; required for external events.", fmt="date-time"),
    entity_type=string("Where the event takes place.", enum=["stage_instance", "voice", "external"]),
    channel_id=string("Stage or voice channel ID, for stage_instance and voice events."),
    location=string("Location text for external events, e.g. a street address or URL."),
    description=string("Description of the event, up to 1000 characters.", max_length=1000),
)

# --- GitHub ----------------------------------------------------------------------------

OWNER = string("Account that owns the repository: a user or organization login, e.g. octocat.")
REPO = string("Repository name without the owner, e.g. hello-world.")
PER_PAGE = integer("Results per page.", minimum=1, maximum=100, default=30)
PAGE = integer("Page number of the results to fetch.", minimum=1, default=1)

tool(
    "github.create_issue",
    "Opens a new issue in a GitHub repository. Labels, assignees and a milestone can be set if the caller has push access.",
    required=["owner", "repo", "title"],
    owner=OWNER,
    repo=REPO,
    title=string("Title of the issue."),
    body=string("Issue body in GitHub-flavoured Markdown."),
    labels=strings("Label names to add, e.g. [\"bug\", \"good first issue\"]."),
    assignees=strings("Logins of users to assign."),
    milestone=integer("Number of the milestone to associate with the issue."),
)
tool(
    "github.list_issues",
    "Lists issues in a repository, newest first by default. Pull requests are returned too, marked with a pull_request key.",
    required=["owner", "repo"],
    owner=OWNER,
    repo=REPO,
    state=string("Filter by state.", enum=["open", "closed", "all"], default="open"),
    labels=string("Comma-separated label names, e.g. bug,ui,@high; issues must have all of them."),
    assignee=string("Login of the assignee, 'none' for unassigned issues or '*' for any."),
    creator=string("Login of the user who opened the issue."),
    sort=string("What to sort by.", enum=["created", "updated", "comments"], default="created"),
    direction=string("Sort direction.", enum=["asc", "desc"], default="desc"),
    since=string("Only issues updated at or after this ISO 8601 time.", fmt="date-time"),
    per_page=PER_PAGE,
    page=PAGE,
)
tool(
    "github.get_issue",
    "Gets one issue or pull request by number, with its body, labels, assignees, state and comment count.",
    required=["owner", "repo", "issue_number"],
    owner=OWNER,
    repo=REPO,
    issue_number=integer("Number of the issue, as shown after # in the UI.", minimum=1),
)
tool(
    "github.update_issue",
    "Changes an issue's title, body, state, labels or assignees. Closing an issue can record why it was closed.",
    required=["owner", "repo", "issue_number"],
    owner=OWNER,
    repo=REPO,
    issue_number=integer("Number of the issue.", minimum=1),
    title=string("New title."),
    body=string("New body in Markdown."),
    state=string("New state.", enum=["open", "closed"]),
    state_reason=string("Why the state changed.", enum=["completed", "not_planned", "reopened"]),
    labels=strings("Replaces all labels on the issue; pass [] to remove them."),
    assignees=strings("Replaces all assignees; pass [] to unassign everyone."),
)
tool(
    "github.add_issue_comment",
    "Adds a comment to an issue or pull request conversation.",
    required=["owner", "repo", "issue_number", "body"],
    owner=OWNER,
    repo=REPO,
    issue_number=integer("Number of the issue or pull request.", minimum=1),
    body=string("Comment text in Markdown."),
)
tool(
    "github.create_pull_request",
    "Opens a pull request to merge the commits of the head branch into the base branch.",
    required=["owner", "repo", "title", "head", "base"],
    owner=OWNER,
    repo=REPO,
    title=string("Title of the pull request."),
    head=string("Branch that holds the changes; for a fork use user:branch, e.g. octocat:fix-typo."),
    base=string("Branch to merge into, e.g. main."),
    body=string("Description of the pull request in Markdown."),
    draft=boolean("Open the pull request as a draft.", default=False),
    maintainer_can_modify=boolean("Let maintainers of the base repository push to the head branch.", default=True),
)
tool(
    "github.list_pull_requests",
    "Lists pull requests in a repository, filtered by state, head or base branch.",
    required=["owner", "repo"],
    owner=OWNER,
    repo=REPO,
    state=string("Filter by state.", enum=["open", "closed", "all"], default="open"),
    head=string("Only pull requests from this head, as user:ref-name."),
    base=string("Only pull requests into this base branch."),
    sort=string("What to sort by.", enum=["created", "updated", "popularity", "long-running"], default="created"),
    direction=string("Sort direction.", enum=["asc", "desc"], default="desc"),
    per_page=PER_PAGE,
)
tool(
    "github.get_pull_request_diff",
    "Returns the unified diff of a pull request, or the list of changed files with additions and deletions.",
    required=["owner", "repo", "pull_number"],
    owner=OWNER,
    repo=REPO,
    pull_number=integer("Number of the pull request.", minimum=1),
    format=string("diff for the raw unified diff, files for per-file stats and patches.", enum=["diff", "files"], default="diff"),
)
tool(
    "github.merge_pull_request",
    "Merges a pull request if it is mergeable and its required checks and reviews pass.",
    required=["owner", "repo", "pull_number"],
    owner=OWNER,
    repo=REPO,
    pull_number=integer("Number of the pull request.", minimum=1),
    merge_method=string("How to merge.", enum=["merge", "squash", "rebase"], default="merge"),
    commit_title=string("Title of the merge or squash commit."),
    commit_message=string("Extra detail for the merge or squash commit message."),
    sha=string("Merge only if the head of the pull request is still this commit SHA."),
)
tool(
    "github.create_pull_request_review",
    "Submits a review on a pull request: approve it, request changes, or comment, optionally with comments on specific lines.",
    required=["owner", "repo", "pull_number", "event"],
    owner=OWNER,
    repo=REPO,
    pull_number=integer("Number of the pull request.", minimum=1),
    event=string("Review verdict.", enum=["APPROVE", "REQUEST_CHANGES", "COMMENT"]),
    body=string("Overall review comment; required for REQUEST_CHANGES and COMMENT."),
    comments=array(
        obj(
            "A comment on one line of the diff.",
            required=["path", "line", "body"],
            path=string("File path relative to the repository root."),
            line=integer("Line number in the file, on the side given by side.", minimum=1),
            side=string("Side of the diff the line is on.", enum=["LEFT", "RIGHT"], default="RIGHT"),
            body=string("Comment text."),
        ),
        "Line comments to attach to the review.",
    ),
)
tool(
    "github.request_reviewers",
    "Requests reviews on a pull request from users or teams.",
    required=["owner", "repo", "pull_number"],
    owner=OWNER,
    repo=REPO,
    pull_number=integer("Number of the pull request.", minimum=1),
    reviewers=strings("Logins of users to request reviews from."),
    team_reviewers=strings("Slugs of organization teams to request reviews from."),
)
tool(
    "github.get_file_contents",
    "Reads a file or lists a directory in a repository at a given branch, tag or commit. File content is returned decoded as text.",
    required=["owner", "repo", "path"],
    owner=OWNER,
    repo=REPO,
    path=string("Path within the repository, e.g. src/app.py or docs/."),
    ref=string("Branch, tag or commit SHA; defaults to the default branch."),
)
tool(
    "github.create_or_update_file",
    "Creates a file or replaces its content with a single commit on a branch. Updating an existing file needs its current blob SHA.",
    required=["owner", "repo", "path", "content", "message"],
    owner=OWNER,
    repo=REPO,
    path=string("Path of the file within the repository."),
    content=string("New content of the file as plain text."),
    message=string("Commit message."),
    branch=string("Branch to commit to; defaults to the default branch."),
    sha=string("Blob SHA of the file being replaced; required when the file exists."),
)
tool(
    "github.create_branch",
    "Creates a branch pointing at the head of another branch or at a commit.",
    required=["owner", "repo", "branch"],
    owner=OWNER,
    repo=REPO,
    branch=string("Name of the new branch, e.g. feature/login-form."),
    from_ref=string("Branch name or commit SHA to start from; defaults to the default branch."),
)
tool(
    "github.list_commits",
    "Lists commits on a branch, newest first, optionally only those touching a path or by an author.",
    required=["owner", "repo"],
    owner=OWNER,
    repo=REPO,
    sha=string("Branch name or commit SHA to start listing from."),
    path=string("Only commits that changed this file or directory."),
    author=string("GitHub login or email address of the commit author."),
    since=string("Only commits after this ISO 8601 time.", fmt="date-time"),
    until=string("Only commits before this ISO 8601 time.", fmt="date-time"),
    per_page=PER_PAGE,
)
tool(
    "github.search_code",
    "Searches file contents across GitHub with code search qualifiers. Only the default branch of each repository is searched.",
    required=["q"],
    q=string("Search query with qualifiers, e.g. 'addClass in:file language:js repo:jquery/jquery'."),
    per_page=PER_PAGE,
    page=PAGE,
)
tool(
    "github.search_repositories",
    "Finds repositories by name, description, topic, language or star count.",
    required=["q"],
    q=string("Search query, e.g. 'tetris language:assembly stars:>100 topic:games'."),
    sort=string("Sort field; omit to sort by best match.", enum=["stars", "forks", "help-wanted-issues", "updated"]),
    order=string("Sort order.", enum=["asc", "desc"], default="desc"),
    per_page=PER_PAGE,
)
tool(
    "github.create_repository",
    "Creates a repository for the authenticated user or in an organization.",
    required=["name"],
    name=string("Name of the repository."),
    org=string("Organization to create the repository in; omit for the authenticated user."),
    description=string("Short description of the repository."),
    private=boolean("Make the repository private.", default=False),
    auto_init=boolean("Create an initial commit with an empty README.", default=False),
    gitignore_template=string("Name of a .gitignore template to apply, e.g. Python or Node."),
    license_template=string("SPDX-style keyword of a license to add, e.g. mit or apache-2.0."),
)
tool(
    "github.fork_repository",
    "Forks a repository into the authenticated user's account or an organization. Forking happens asynchronously.",
    required=["owner", "repo"],
    owner=OWNER,
    repo=REPO,
    organization=string("Organization to fork into; omit to fork into your own account."),
    default_branch_only=boolean("Copy only the default branch.", default=False),
)
tool(
    "github.list_workflow_runs",
    "Lists GitHub Actions workflow runs for a repository, with their status, conclusion, branch and triggering event.",
    required=["owner", "repo"],
    owner=OWNER,
    repo=REPO,
    workflow_id=string("Workflow file name such as ci.yml, or the numeric workflow ID, to list only its runs."),
    branch=string("Only runs for this branch."),
    event=string("Only runs triggered by this event, e.g. push, pull_request, schedule."),
    status=string("Only runs with this status or conclusion.", enum=["queued", "in_progress", "completed", "success", "failure", "cancelled", "skipped", "timed_out"]),
    per_page=PER_PAGE,
)
tool(
    "github.rerun_workflow_run",
    "Re-runs a GitHub Actions workflow run, either every job or only the failed ones.",
    required=["owner", "repo", "run_id"],
    owner=OWNER,
    repo=REPO,
    run_id=integer("ID of the workflow run.", minimum=1),
    failed_jobs_only=boolean("Re-run only the jobs that failed and their dependents.", default=False),
    enable_debug_logging=boolean("Turn on runner and step debug logging for the re-run.", default=False),
)
tool(
    "github.create_release",
    "Publishes a release for a tag, creating the tag from a branch or commit if it does not exist yet.",
    required=["owner", "repo", "tag_name"],
    owner=OWNER,
    repo=REPO,
    tag_name=string("Tag for the release, e.g. v1.4.0."),
    target_commitish=string("Branch or commit SHA to tag if the tag does not exist; defaults to the default branch."),
    name=string("Title of the release."),
    body=string("Release notes in Markdown."),
    draft=boolean("Save as an unpublished draft.", default=False),
    prerelease=boolean("Mark the release as a pre-release.", default=False),
    generate_release_notes=boolean("Generate release notes from merged pull requests since the last release.", default=False),
)

# --- GitLab ----------------------------------------------------------------------------

PROJECT_ID = string("Numeric project ID or URL-encoded path, e.g. 42 or my-group/my-project.")
MR_IID = integer("Project-level IID of the merge request, the number after ! in the UI.", minimum=1)

tool(
    "gitlab_create_merge_request",
    "Opens a merge request from a source branch into a target branch of a GitLab project.",
    required=["project_id", "source_branch", "target_branch", "title"],
    project_id=PROJECT_ID,
    source_branch=string("Branch that holds the changes."),
    target_branch=string("Branch to merge into, e.g. main."),
    title=string("Title; prefix it with 'Draft:' to open a draft merge request."),
    description=string("Description in GitLab Markdown; may contain quick actions such as /assign @me."),
    assignee_ids=array({"type": "integer"}, "IDs of users to assign."),
    reviewer_ids=array({"type": "integer"}, "IDs of users to request reviews from."),
    labels=string("Comma-separated label names."),
    remove_source_branch=boolean("Delete the source branch when the merge request is merged.", default=False),
    squash=boolean("Squash the commits into one on merge.", default=False),
)
tool(
    "gitlab_list_merge_requests",
    "Lists merge requests of a project, filtered by state, author, reviewer or labels.",
    required=["project_id"],
    project_id=PROJECT_ID,
    state=string("Filter by state.", enum=["opened", "closed", "locked", "merged", "all"], default="opened"),
    author_username=string("Only merge requests opened by this user."),
    reviewer_username=string("Only merge requests where this user is a reviewer."),
    labels=string("Comma-separated labels; merge requests must have all of them."),
    order_by=string("Sort field.", enum=["created_at", "updated_at", "title"], default="created_at"),
    per_page=integer("Results per page.", minimum=1, maximum=100, default=20),
)
tool(
    "gitlab_approve_merge_request",
    "Approves a merge request as the authenticated user.",
    required=["project_id", "merge_request_iid"],
    project_id=PROJECT_ID,
    merge_request_iid=MR_IID,
    sha=string("Approve only if the head of the merge request is still this commit SHA."),
)
tool(
    "gitlab_accept_merge_request",
    "Merges a merge request now, or sets it to merge automatically once its pipeline succeeds.",
    required=["project_id", "merge_request_iid"],
    project_id=PROJECT_ID,
    merge_request_iid=MR_IID,
    merge_when_pipeline_succeeds=boolean("Wait for the pipeline and merge when it passes.", default=False),
    squash=boolean("Squash the commits on merge.", default=False),
    should_remove_source_branch=boolean("Delete the source branch after merging."),
    merge_commit_message=string("Custom merge commit message."),
)
tool(
    "gitlab_create_issue",
    "Creates an issue, incident or task in a GitLab project.",
    required=["project_id", "title"],
    project_id=PROJECT_ID,
    title=string("Title of the issue."),
    description=string("Description in GitLab Markdown, up to 1,048,576 characters."),
    issue_type=string("Type of work item.", enum=["issue", "incident", "test_case", "task"], default="issue"),
    labels=string("Comma-separated label names, e.g. bug,priority::1."),
    assignee_ids=array({"type": "integer"}, "IDs of users to assign."),
    milestone_id=integer("ID of the milestone."),
    due_date=string("Due date as YYYY-MM-DD.", fmt="date"),
    confidential=boolean("Make the issue visible only to project members with at least Reporter access.", default=False),
    weight=integer("Weight of the issue.", minimum=0),
)
tool(
    "gitlab_list_issues",
    "Lists issues of a project with filters for state, labels, milestone, assignee and search text.",
    required=["project_id"],
    project_id=PROJECT_ID,
    state=string("Filter by state.", enum=["opened", "closed", "all"], default="opened"),
    labels=string("Comma-separated labels; 'None' for unlabelled issues."),
    milestone=string("Milestone title; 'None' or 'Any' are also accepted."),
    assignee_username=string("Username of the assignee."),
    search=string("Text to search for in titles and descriptions."),
    per_page=integer("Results per page.", minimum=1, maximum=100, default=20),
)
tool(
    "gitlab_add_note",
    "Adds a comment (note) to an issue or a merge request.",
    required=["project_id", "noteable_type", "noteable_iid", "body"],
    project_id=PROJECT_ID,
    noteable_type=string("What the comment is on.", enum=["issue", "merge_request"]),
    noteable_iid=integer("IID of the issue or merge request.", minimum=1),
    body=string("Comment text in Markdown."),
    internal=boolean("Make it an internal note visible only to project members.", default=False),
)
tool(
    "gitlab_list_pipelines",
    "Lists CI/CD pipelines of a project, newest first, with status, ref and source.",
    required=["project_id"],
    project_id=PROJECT_ID,
    ref=string("Only pipelines for this branch or tag."),
    status=string("Only pipelines with this status.", enum=["created", "waiting_for_resource", "preparing", "pending", "running", "success", "failed", "canceled", "skipped", "manual", "scheduled"]),
    source=string("Only pipelines triggered this way, e.g. push, web, schedule, merge_request_event."),
    per_page=integer("Results per page.", minimum=1, maximum=100, default=20),
)
tool(
    "gitlab_trigger_pipeline",
    "Runs a new CI/CD pipeline for a branch or tag, optionally with CI/CD variables.",
    required=["project_id", "ref"],
    project_id=PROJECT_ID,
    ref=string("Branch or tag to run the pipeline for."),
    variables=array(
        obj(
            "A CI/CD variable.",
            required=["key", "value"],
            key=string("Variable name, e.g. DEPLOY_ENV."),
            value=string("Variable value."),
            variable_type=string("How the runner exposes the variable.", enum=["env_var", "file"], default="env_var"),
        ),
        "Variables available to the pipeline's jobs.",
    ),
)
tool(
    "gitlab_retry_job",
    "Retries a failed or canceled CI job.",
    required=["project_id", "job_id"],
    project_id=PROJECT_ID,
    job_id=integer("ID of the job.", minimum=1),
)
tool(
    "gitlab_get_job_log",
    "Fetches the log (trace) of a CI job, to see why it failed.",
    required=["project_id", "job_id"],
    project_id=PROJECT_ID,
    job_id=integer("ID of the job.", minimum=1),
    tail_lines=integer("Return only the last N lines of the log.", minimum=1),
)
tool(
    "gitlab_get_repository_tree",
    "Lists files and directories in a project's repository at a path and ref.",
    required=["project_id"],
    project_id=PROJECT_ID,
    path=string("Directory inside the repository; defaults to the root."),
    ref=string("Branch, tag or commit; defaults to the default branch."),
    recursive=boolean("List the whole subtree.", default=False),
)
tool(
    "gitlab_search_projects",
    "Finds GitLab projects the user can see by name or path.",
    required=["search"],
    search=string("Text to match against project names and paths."),
    membership=boolean("Only projects the user is a member of.", default=False),
    visibility=string("Only projects with this visibility.", enum=["public", "internal", "private"]),
    order_by=string("Sort field.", enum=["id", "name", "path", "created_at", "updated_at", "last_activity_at", "star_count"], default="last_activity_at"),
)

# --- Jira ------------------------------------------------------------------------------

ISSUE_KEY = string("Issue key or ID, e.g. PROJ-123.")

tool(
    "jira-create-issue",
    "Creates a Jira issue such as a bug, story, task or epic in a project. Returns the new issue's key.",
    required=["project_key", "issue_type", "summary"],
    project_key=string("Key of the project, e.g. PROJ."),
    issue_type=string("Issue type name as configured in the project, e.g. Bug, Story, Task, Epic, Sub-task."),
    summary=string("One-line summary of the issue."),
    description=string("Description in plain text or Jira wiki markup."),
    priority=string("Priority name.", enum=["Highest", "High", "Medium", "Low", "Lowest"]),
    assignee_account_id=string("Atlassian account ID of the assignee."),
    labels=strings("Labels to add; labels cannot contain spaces."),
    components=strings("Names of project components."),
    parent_key=string("Key of the parent issue, for sub-tasks or issues under an epic."),
    due_date=string("Due date as YYYY-MM-DD.", fmt="date"),
)
tool(
    "jira-get-issue",
    "Gets a Jira issue with its fields, status, assignee, comments and links.",
    required=["issue_key"],
    issue_key=ISSUE_KEY,
    fields=string("Comma-separated field names to return, e.g. summary,status,assignee; defaults to all navigable fields."),
    expand=string("Extra data to include, e.g. changelog,renderedFields,transitions."),
)
tool(
    "jira-update-issue",
    "Edits fields of an existing Jira issue. Only the fields given are changed; to change status use jira-transition-issue.",
    required=["issue_key"],
    issue_key=ISSUE_KEY,
    summary=string("New summary."),
    description=string("New description."),
    priority=string("New priority.", enum=["Highest", "High", "Medium", "Low", "Lowest"]),
    labels=strings("Replaces the issue's labels."),
    custom_fields=obj("Other fields keyed by field ID, e.g. {\"customfield_10016\": 5} for story points.", additional=True),
    notify_users=boolean("Send an email notification to watchers.", default=True),
)
tool(
    "jira-list-transitions",
    "Lists the workflow transitions available for an issue in its current status, with their IDs and target statuses.",
    required=["issue_key"],
    issue_key=ISSUE_KEY,
)
tool(
    "jira-transition-issue",
    "Moves an issue through its workflow, e.g. from To Do to In Progress or Done, optionally adding a comment and resolution.",
    required=["issue_key", "transition"],
    issue_key=ISSUE_KEY,
    transition=string("Transition ID or name, e.g. 31 or 'Start Progress'; see jira-list-transitions."),
    comment=string("Comment to add with the transition."),
    resolution=string("Resolution to set when closing, e.g. Fixed, Won't Do, Duplicate."),
)
tool(
    "jira-search-issues",
    "Searches Jira issues with JQL and returns matching keys, summaries and statuses.",
    required=["jql"],
    jql=string("JQL query, e.g. 'project = PROJ AND status = \"In Progress\" AND assignee = currentUser() ORDER BY updated DESC'."),
    fields=string("Comma-separated fields to return.", default="summary,status,assignee,priority"),
    max_results=integer("Maximum number of issues to return.", minimum=1, maximum=100, default=50),
    next_page_token=string("Token from the previous response to fetch the next page."),
)
tool(
    "jira-add-comment",
    "Adds a comment to a Jira issue, optionally visible only to a project role or group.",
    required=["issue_key", "body"],
    issue_key=ISSUE_KEY,
    body=string("Comment text; supports Jira wiki markup and @mentions as [~accountid:...]."),
    visibility_role=string("Restrict the comment to this project role, e.g. Developers."),
)
tool(
    "jira-assign-issue",
    "Assigns an issue to a user, or unassigns it.",
    required=["issue_key"],
    issue_key=ISSUE_KEY,
    account_id=string("Atlassian account ID of the new assignee; omit to unassign, or '-1' for the project's default assignee."),
)
tool(
    "jira-log-work",
    "Records time spent on an issue as a worklog entry and adjusts the remaining estimate.",
    required=["issue_key", "time_spent"],
    issue_key=ISSUE_KEY,
    time_spent=string("Time spent in Jira duration format, e.g. '3h 20m' or '1d'."),
    started=string("When the work started, ISO 8601; defaults to now.", fmt="date-time"),
    comment=string("What was done."),
    adjust_estimate=string("How to update the remaining estimate.", enum=["auto", "leave", "new", "manual"], default="auto"),
)
tool(
    "jira-link-issues",
    "Links two issues with a link type such as Blocks, Duplicate, Relates or Cloners.",
    required=["inward_issue_key", "outward_issue_key", "link_type"],
    inward_issue_key=string("Issue on the inward side, e.g. the one that 'is blocked by'."),
    outward_issue_key=string("Issue on the outward side, e.g. the one that 'blocks'."),
    link_type=string("Name of the link type, e.g. Blocks, Duplicate, Relates."),
    comment=string("Comment to add to the outward issue."),
)
tool(
    "jira-add-attachment",
    "Attaches a local file to a Jira issue.",
    required=["issue_key", "file_path"],
    issue_key=ISSUE_KEY,
    file_path=string("Path of the file to attach."),
)
tool(
    "jira-list-sprints",
    "Lists the sprints of a Scrum board with their state, start and end dates and goals.",
    required=["board_id"],
    board_id=integer("ID of the board.", minimum=1),
    state=string("Comma-separated sprint states to include.", default="active,future"),
)
tool(
    "jira-move-issues-to-sprint",
    "Moves up to 50 issues into a sprint, or back to the backlog.",
    required=["issue_keys"],
    issue_keys=strings("Keys of the issues to move.", min_items=1, max_items=50),
    sprint_id=integer("ID of the target sprint; omit to move the issues to the backlog.", minimum=1),
)
tool(
    "jira-get-project",
    "Gets a Jira project's details: name, lead, issue types, components and versions.",
    required=["project_key"],
    project_key=string("Key or ID of the project, e.g. PROJ."),
)

# --- Linear ----------------------------------------------------------------------------

LINEAR_ISSUE = string("Issue ID or human-readable identifier, e.g. ENG-1423.")

tool(
    "linear_create_issue",
    "Creates an issue in a Linear team. The description is Markdown; priority runs from 1 (urgent) to 4 (low), 0 meaning none.",
    required=["team_id", "title"],
    team_id=string("ID or key of the team, e.g. ENG."),
    title=string("Title of the issue."),
    description=string("Description in Markdown."),
    priority=integer("0 no priority, 1 urgent, 2 high, 3 medium, 4 low.", enum=[0, 1, 2, 3, 4], default=0),
    assignee_id=string("ID of the user to assign, or 'me'."),
    state_id=string("ID of the workflow state; defaults to the team's first backlog state."),
    label_ids=strings("IDs of labels to apply."),
    project_id=string("ID of the project to add the issue to."),
    cycle_id=string("ID of the cycle to schedule the issue in."),
    estimate=integer("Estimate in the team's points scale.", minimum=0),
    parent_id=string("ID of a parent issue, to create a sub-issue."),
    due_date=string("Due date as YYYY-MM-DD.", fmt="date"),
)
tool(
    "linear_update_issue",
    "Updates a Linear issue: title, description, status, priority, assignee, labels or estimate.",
    required=["issue_id"],
    issue_id=LINEAR_ISSUE,
    title=string("New title."),
    description=string("New Markdown description."),
    state_id=string("ID of the new workflow state, e.g. the team's 'In Progress' state."),
    priority=integer("0 no priority, 1 urgent, 2 high, 3 medium, 4 low.", enum=[0, 1, 2, 3, 4]),
    assignee_id=string("ID of the new assignee; null to unassign."),
    label_ids=strings("Replaces the issue's labels."),
    estimate=integer("New estimate.", minimum=0),
)
tool(
    "linear_get_issue",
    "Gets a Linear issue with its description, status, assignee, labels, comments and attachments.",
    required=["issue_id"],
    issue_id=LINEAR_ISSUE,
)
tool(
    "linear_search_issues",
    "Searches Linear issues by text and filters such as team, status type and assignee.",
    query=string("Text to match in titles and descriptions."),
    team_key=string("Only issues of this team, e.g. ENG."),
    state_type=string("Only issues whose status is of this type.", enum=["triage", "backlog", "unstarted", "started", "completed", "canceled"]),
    assignee=string("Assignee's email or display name, or 'me'."),
    first=integer("Number of issues to return.", minimum=1, maximum=250, default=50),
)
tool(
    "linear_add_comment",
    "Comments on a Linear issue, or replies to an existing comment.",
    required=["issue_id", "body"],
    issue_id=LINEAR_ISSUE,
    body=string("Comment text in Markdown."),
    parent_comment_id=string("ID of the comment to reply to."),
)
tool(
    "linear_list_teams",
    "Lists the teams in the Linear workspace with their IDs, keys and names.",
    include_archived=boolean("Include archived teams.", default=False),
)
tool(
    "linear_list_workflow_states",
    "Lists a team's workflow states (e.g. Backlog, Todo, In Progress, Done) with their IDs and types.",
    required=["team_id"],
    team_id=string("ID or key of the team."),
)
tool(
    "linear_create_project",
    "Creates a Linear project spanning one or more teams, with a lead and target date.",
    required=["name", "team_ids"],
    name=string("Name of the project."),
    team_ids=strings("IDs of the teams working on the project.", min_items=1),
    description=string("Short summary of the project."),
    lead_id=string("ID of the project lead."),
    start_date=string("Planned start date, YYYY-MM-DD.", fmt="date"),
    target_date=string("Target completion date, YYYY-MM-DD.", fmt="date"),
)
tool(
    "linear_list_cycles",
    "Lists a team's cycles (sprints) with their numbers, dates and progress.",
    required=["team_id"],
    team_id=string("ID or key of the team."),
    filter=string("Which cycles to return.", enum=["current", "next", "previous", "all"], default="current"),
)
tool(
    "linear_archive_issue",
    "Archives a Linear issue, removing it from views; it can be restored later.",
    required=["issue_id"],
    issue_id=LINEAR_ISSUE,
)
