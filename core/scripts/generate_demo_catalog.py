# ruff: noqa: E501
"""Source of the demo catalog `demo_tools.jsonl`: hand-written tool definitions.

The tools are written here as Python calls rather than raw JSON so that they can be
reviewed and edited one at a time; `python core/scripts/generate_demo_catalog.py` rewrites
`core/src/toolscout/data/demo_tools.jsonl` from them (one Anthropic-form tool per line). The
definitions imitate the public APIs of common services but are written for this project.

This script lives outside the package, so it is not shipped in the wheel; only the JSONL is.
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

SLACK_CHANNEL = string(
    "Channel, private group or direct-message ID, e.g. C024BE91L. A #channel-name is resolved to its ID."
)
SLACK_TS = string(
    "Timestamp of the message, the `ts` value Slack returned when it was posted, e.g. 1712345678.000200."
)
SLACK_CURSOR = string(
    "Cursor from `next_cursor` of the previous page; omit it to start at the beginning."
)

tool(
    "slack_send_message",
    "Posts a message to a Slack channel, private group or direct message. Pass thread_ts to reply inside a thread instead of posting to the channel.",
    required=["channel", "text"],
    channel=SLACK_CHANNEL,
    text=string(
        "Message text in Slack mrkdwn (*bold*, _italic_, <https://example.com|links>, <@U123> mentions)."
    ),
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
    types=string(
        "Comma-separated channel types to include.",
        default="public_channel",
        pattern="^(public_channel|private_channel|mpim|im)(,(public_channel|private_channel|mpim|im))*$",
    ),
    exclude_archived=boolean("Leave archived channels out of the list.", default=True),
    limit=integer(
        "Maximum number of channels to return per page.", minimum=1, maximum=1000, default=200
    ),
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
    users=strings(
        'User IDs to invite, e.g. ["U0G9QF9C6", "U1QNSQB9U"].', min_items=1, max_items=1000
    ),
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
    query=string(
        "Search query; supports modifiers such as in:#general, from:@maria, has:link, before:2024-05-01."
    ),
    sort=string(
        "Sort results by relevance or by time.", enum=["score", "timestamp"], default="score"
    ),
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
    status_text=string(
        "Status text, up to 100 characters; an empty string clears the status.", max_length=100
    ),
    status_emoji=string("Emoji shown with the status, with colons, e.g. :palm_tree:."),
    status_expiration=integer(
        "Unix timestamp when the status is cleared; 0 keeps it until changed.", minimum=0, default=0
    ),
)

# --- Microsoft Teams -------------------------------------------------------------------

TEAM_ID = string("ID of the team (the group ID), e.g. 02bd9fd6-8f93-4758-87c3-1fb73740a315.")
TEAMS_CHANNEL_ID = string(
    "ID of the channel, e.g. 19:09fc54a3141a45d0bc769cf506d2e079@thread.skype."
)

tool(
    "teams_send_channel_message",
    "Posts a new message to a channel in Microsoft Teams. HTML content can include mentions, links and simple formatting.",
    required=["team_id", "channel_id", "content"],
    team_id=TEAM_ID,
    channel_id=TEAMS_CHANNEL_ID,
    content=string("Body of the message."),
    content_type=string(
        "Whether content is plain text or HTML.", enum=["text", "html"], default="text"
    ),
    subject=string("Optional subject line shown above the message."),
    importance=string(
        "Importance flag of the message.", enum=["normal", "high", "urgent"], default="normal"
    ),
)
tool(
    "teams_reply_to_message",
    "Replies to an existing message in a Teams channel, adding the reply to its conversation thread.",
    required=["team_id", "channel_id", "message_id", "content"],
    team_id=TEAM_ID,
    channel_id=TEAMS_CHANNEL_ID,
    message_id=string("ID of the root message being replied to."),
    content=string("Body of the reply."),
    content_type=string(
        "Whether content is plain text or HTML.", enum=["text", "html"], default="text"
    ),
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
    content_type=string(
        "Whether content is plain text or HTML.", enum=["text", "html"], default="text"
    ),
)
tool(
    "teams_create_chat",
    "Starts a new one-on-one or group chat with the given people. A one-on-one chat that already exists is returned instead of duplicated.",
    required=["members"],
    members=strings(
        "User principal names or user IDs of the people to add, besides the caller.", min_items=1
    ),
    chat_type=string(
        "oneOnOne for exactly one other person, group for more.",
        enum=["oneOnOne", "group"],
        default="group",
    ),
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
    membership_type=string(
        "Only list channels of this membership type.", enum=["standard", "private", "shared"]
    ),
)
tool(
    "teams_create_channel",
    "Creates a channel in a team. Private and shared channels need at least one owner besides the caller.",
    required=["team_id", "display_name"],
    team_id=TEAM_ID,
    display_name=string("Channel name as shown in Teams, up to 50 characters.", max_length=50),
    description=string("Description of the channel's purpose."),
    membership_type=string(
        "Who can see the channel.", enum=["standard", "private", "shared"], default="standard"
    ),
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
    start_datetime=string(
        "Start time in ISO 8601 with offset, e.g. 2024-06-03T15:00:00+02:00.", fmt="date-time"
    ),
    end_datetime=string("End time in ISO 8601 with offset.", fmt="date-time"),
    attendees=strings("Email addresses of attendees to add as participants.", fmt="email"),
    lobby_bypass=string(
        "Who can skip the lobby and join directly.",
        enum=["organizer", "organization", "organizationAndFederated", "everyone"],
        default="organization",
    ),
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
    content=string(
        "Message text, up to 2000 characters; supports Discord markdown.", max_length=2000
    ),
    embeds=array(
        obj(
            "A rich embed.",
            title=string("Embed title."),
            description=string("Embed body text."),
            url=string("Link opened when the title is clicked.", fmt="uri"),
            color=integer(
                "Colour of the side bar as an RGB integer, e.g. 5814783.",
                minimum=0,
                maximum=16777215,
            ),
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
    auto_archive_duration=integer(
        "Minutes of inactivity after which the thread is archived.",
        enum=[60, 1440, 4320, 10080],
        default=1440,
    ),
    private=boolean("Create a private thread visible only to invited members.", default=False),
)
tool(
    "discord_add_reaction",
    "Reacts to a message with a Unicode emoji or a custom server emoji.",
    required=["channel_id", "message_id", "emoji"],
    channel_id=DISCORD_CHANNEL,
    message_id=string("Snowflake ID of the message."),
    emoji=string(
        "A Unicode emoji such as 👍, or a custom emoji as name:id, e.g. partyparrot:1012345678901234567."
    ),
)
tool(
    "discord_create_channel",
    "Creates a channel in a server. Requires the Manage Channels permission.",
    required=["guild_id", "name"],
    guild_id=GUILD_ID,
    name=string(
        "Channel name, 1-100 characters; text channel names are lowercased with dashes.",
        max_length=100,
    ),
    type=string(
        "Kind of channel.", enum=["text", "voice", "announcement", "forum", "stage"], default="text"
    ),
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
    delete_message_seconds=integer(
        "Delete the user's messages from this many past seconds (up to 7 days).",
        minimum=0,
        maximum=604800,
        default=0,
    ),
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
    entity_type=string(
        "Where the event takes place.", enum=["stage_instance", "voice", "external"]
    ),
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
    labels=strings('Label names to add, e.g. ["bug", "good first issue"].'),
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
    head=string(
        "Branch that holds the changes; for a fork use user:branch, e.g. octocat:fix-typo."
    ),
    base=string("Branch to merge into, e.g. main."),
    body=string("Description of the pull request in Markdown."),
    draft=boolean("Open the pull request as a draft.", default=False),
    maintainer_can_modify=boolean(
        "Let maintainers of the base repository push to the head branch.", default=True
    ),
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
    sort=string(
        "What to sort by.",
        enum=["created", "updated", "popularity", "long-running"],
        default="created",
    ),
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
    format=string(
        "diff for the raw unified diff, files for per-file stats and patches.",
        enum=["diff", "files"],
        default="diff",
    ),
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
            side=string(
                "Side of the diff the line is on.", enum=["LEFT", "RIGHT"], default="RIGHT"
            ),
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
    q=string(
        "Search query with qualifiers, e.g. 'addClass in:file language:js repo:jquery/jquery'."
    ),
    per_page=PER_PAGE,
    page=PAGE,
)
tool(
    "github.search_repositories",
    "Finds repositories by name, description, topic, language or star count.",
    required=["q"],
    q=string("Search query, e.g. 'tetris language:assembly stars:>100 topic:games'."),
    sort=string(
        "Sort field; omit to sort by best match.",
        enum=["stars", "forks", "help-wanted-issues", "updated"],
    ),
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
    workflow_id=string(
        "Workflow file name such as ci.yml, or the numeric workflow ID, to list only its runs."
    ),
    branch=string("Only runs for this branch."),
    event=string("Only runs triggered by this event, e.g. push, pull_request, schedule."),
    status=string(
        "Only runs with this status or conclusion.",
        enum=[
            "queued",
            "in_progress",
            "completed",
            "success",
            "failure",
            "cancelled",
            "skipped",
            "timed_out",
        ],
    ),
    per_page=PER_PAGE,
)
tool(
    "github.rerun_workflow_run",
    "Re-runs a GitHub Actions workflow run, either every job or only the failed ones.",
    required=["owner", "repo", "run_id"],
    owner=OWNER,
    repo=REPO,
    run_id=integer("ID of the workflow run.", minimum=1),
    failed_jobs_only=boolean(
        "Re-run only the jobs that failed and their dependents.", default=False
    ),
    enable_debug_logging=boolean(
        "Turn on runner and step debug logging for the re-run.", default=False
    ),
)
tool(
    "github.create_release",
    "Publishes a release for a tag, creating the tag from a branch or commit if it does not exist yet.",
    required=["owner", "repo", "tag_name"],
    owner=OWNER,
    repo=REPO,
    tag_name=string("Tag for the release, e.g. v1.4.0."),
    target_commitish=string(
        "Branch or commit SHA to tag if the tag does not exist; defaults to the default branch."
    ),
    name=string("Title of the release."),
    body=string("Release notes in Markdown."),
    draft=boolean("Save as an unpublished draft.", default=False),
    prerelease=boolean("Mark the release as a pre-release.", default=False),
    generate_release_notes=boolean(
        "Generate release notes from merged pull requests since the last release.", default=False
    ),
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
    description=string(
        "Description in GitLab Markdown; may contain quick actions such as /assign @me."
    ),
    assignee_ids=array({"type": "integer"}, "IDs of users to assign."),
    reviewer_ids=array({"type": "integer"}, "IDs of users to request reviews from."),
    labels=string("Comma-separated label names."),
    remove_source_branch=boolean(
        "Delete the source branch when the merge request is merged.", default=False
    ),
    squash=boolean("Squash the commits into one on merge.", default=False),
)
tool(
    "gitlab_list_merge_requests",
    "Lists merge requests of a project, filtered by state, author, reviewer or labels.",
    required=["project_id"],
    project_id=PROJECT_ID,
    state=string(
        "Filter by state.", enum=["opened", "closed", "locked", "merged", "all"], default="opened"
    ),
    author_username=string("Only merge requests opened by this user."),
    reviewer_username=string("Only merge requests where this user is a reviewer."),
    labels=string("Comma-separated labels; merge requests must have all of them."),
    order_by=string(
        "Sort field.", enum=["created_at", "updated_at", "title"], default="created_at"
    ),
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
    merge_when_pipeline_succeeds=boolean(
        "Wait for the pipeline and merge when it passes.", default=False
    ),
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
    issue_type=string(
        "Type of work item.", enum=["issue", "incident", "test_case", "task"], default="issue"
    ),
    labels=string("Comma-separated label names, e.g. bug,priority::1."),
    assignee_ids=array({"type": "integer"}, "IDs of users to assign."),
    milestone_id=integer("ID of the milestone."),
    due_date=string("Due date as YYYY-MM-DD.", fmt="date"),
    confidential=boolean(
        "Make the issue visible only to project members with at least Reporter access.",
        default=False,
    ),
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
    status=string(
        "Only pipelines with this status.",
        enum=[
            "created",
            "waiting_for_resource",
            "preparing",
            "pending",
            "running",
            "success",
            "failed",
            "canceled",
            "skipped",
            "manual",
            "scheduled",
        ],
    ),
    source=string(
        "Only pipelines triggered this way, e.g. push, web, schedule, merge_request_event."
    ),
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
            variable_type=string(
                "How the runner exposes the variable.", enum=["env_var", "file"], default="env_var"
            ),
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
    visibility=string(
        "Only projects with this visibility.", enum=["public", "internal", "private"]
    ),
    order_by=string(
        "Sort field.",
        enum=["id", "name", "path", "created_at", "updated_at", "last_activity_at", "star_count"],
        default="last_activity_at",
    ),
)

# --- Jira ------------------------------------------------------------------------------

ISSUE_KEY = string("Issue key or ID, e.g. PROJ-123.")

tool(
    "jira-create-issue",
    "Creates a Jira issue such as a bug, story, task or epic in a project. Returns the new issue's key.",
    required=["project_key", "issue_type", "summary"],
    project_key=string("Key of the project, e.g. PROJ."),
    issue_type=string(
        "Issue type name as configured in the project, e.g. Bug, Story, Task, Epic, Sub-task."
    ),
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
    fields=string(
        "Comma-separated field names to return, e.g. summary,status,assignee; defaults to all navigable fields."
    ),
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
    custom_fields=obj(
        'Other fields keyed by field ID, e.g. {"customfield_10016": 5} for story points.',
        additional=True,
    ),
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
    transition=string(
        "Transition ID or name, e.g. 31 or 'Start Progress'; see jira-list-transitions."
    ),
    comment=string("Comment to add with the transition."),
    resolution=string("Resolution to set when closing, e.g. Fixed, Won't Do, Duplicate."),
)
tool(
    "jira-search-issues",
    "Searches Jira issues with JQL and returns matching keys, summaries and statuses.",
    required=["jql"],
    jql=string(
        "JQL query, e.g. 'project = PROJ AND status = \"In Progress\" AND assignee = currentUser() ORDER BY updated DESC'."
    ),
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
    account_id=string(
        "Atlassian account ID of the new assignee; omit to unassign, or '-1' for the project's default assignee."
    ),
)
tool(
    "jira-log-work",
    "Records time spent on an issue as a worklog entry and adjusts the remaining estimate.",
    required=["issue_key", "time_spent"],
    issue_key=ISSUE_KEY,
    time_spent=string("Time spent in Jira duration format, e.g. '3h 20m' or '1d'."),
    started=string("When the work started, ISO 8601; defaults to now.", fmt="date-time"),
    comment=string("What was done."),
    adjust_estimate=string(
        "How to update the remaining estimate.",
        enum=["auto", "leave", "new", "manual"],
        default="auto",
    ),
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
    sprint_id=integer(
        "ID of the target sprint; omit to move the issues to the backlog.", minimum=1
    ),
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
    priority=integer(
        "0 no priority, 1 urgent, 2 high, 3 medium, 4 low.", enum=[0, 1, 2, 3, 4], default=0
    ),
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
    state_type=string(
        "Only issues whose status is of this type.",
        enum=["triage", "backlog", "unstarted", "started", "completed", "canceled"],
    ),
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
    filter=string(
        "Which cycles to return.", enum=["current", "next", "previous", "all"], default="current"
    ),
)
tool(
    "linear_archive_issue",
    "Archives a Linear issue, removing it from views; it can be restored later.",
    required=["issue_id"],
    issue_id=LINEAR_ISSUE,
)

# --- Google Calendar (camelCase names, as in the Calendar API's method names) -----------

CALENDAR_ID = string(
    "Calendar identifier: 'primary' for the user's main calendar, or an ID such as team@group.calendar.google.com.",
    default="primary",
)
EVENT_ID = string("Identifier of the event.")
SEND_UPDATES = string(
    "Who receives email notifications about the change.",
    enum=["all", "externalOnly", "none"],
    default="none",
)

tool(
    "calendarListEvents",
    "Lists events on a Google Calendar between two times, optionally matching a text query. Recurring events can be expanded into single instances.",
    calendarId=CALENDAR_ID,
    timeMin=string(
        "Lower bound (exclusive) on an event's end time, RFC 3339, e.g. 2024-06-01T00:00:00Z.",
        fmt="date-time",
    ),
    timeMax=string("Upper bound (exclusive) on an event's start time, RFC 3339.", fmt="date-time"),
    q=string("Free-text search over summary, description, location and attendees."),
    singleEvents=boolean("Expand recurring events into their instances.", default=True),
    orderBy=string(
        "Sort order; startTime needs singleEvents.",
        enum=["startTime", "updated"],
        default="startTime",
    ),
    maxResults=integer("Maximum number of events to return.", minimum=1, maximum=2500, default=250),
    timeZone=string("IANA time zone for the response, e.g. Europe/Berlin."),
)
tool(
    "calendarGetEvent",
    "Returns one event from a Google Calendar with its attendees, conference link and recurrence.",
    required=["eventId"],
    calendarId=CALENDAR_ID,
    eventId=EVENT_ID,
)
tool(
    "calendarInsertEvent",
    "Creates an event on a Google Calendar, optionally inviting attendees and attaching a Google Meet link.",
    required=["summary", "start", "end"],
    calendarId=CALENDAR_ID,
    summary=string("Title of the event."),
    start=string("Start: RFC 3339 date-time, or YYYY-MM-DD for an all-day event."),
    end=string("End (exclusive): RFC 3339 date-time, or YYYY-MM-DD for an all-day event."),
    timeZone=string("IANA time zone of start and end, e.g. America/New_York."),
    description=string("Description; may contain HTML."),
    location=string("Geographic location or room as free text."),
    attendees=strings("Email addresses of people to invite.", fmt="email"),
    recurrence=strings(
        'RRULE, EXRULE, RDATE or EXDATE lines, e.g. ["RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=10"].'
    ),
    addGoogleMeet=boolean("Create a Google Meet conference for the event.", default=False),
    reminderMinutes=array(
        {"type": "integer", "minimum": 0, "maximum": 40320},
        "Popup reminders, in minutes before the start; omit for the calendar's defaults.",
    ),
    visibility=string(
        "Visibility of the event.",
        enum=["default", "public", "private", "confidential"],
        default="default",
    ),
    sendUpdates=SEND_UPDATES,
)
tool(
    "calendarPatchEvent",
    "Changes some fields of an existing Google Calendar event and leaves the rest as they are.",
    required=["eventId"],
    calendarId=CALENDAR_ID,
    eventId=EVENT_ID,
    summary=string("New title."),
    start=string("New start, RFC 3339 or YYYY-MM-DD."),
    end=string("New end, RFC 3339 or YYYY-MM-DD."),
    location=string("New location."),
    description=string("New description."),
    attendees=strings("Replaces the attendee list with these email addresses.", fmt="email"),
    sendUpdates=SEND_UPDATES,
)
tool(
    "calendarDeleteEvent",
    "Deletes an event from a Google Calendar; attendees can be notified of the cancellation.",
    required=["eventId"],
    calendarId=CALENDAR_ID,
    eventId=EVENT_ID,
    sendUpdates=SEND_UPDATES,
)
tool(
    "calendarQuickAdd",
    "Creates an event from a short natural-language sentence such as 'Dinner with Sam at Luigi's on Friday 7pm'.",
    required=["text"],
    calendarId=CALENDAR_ID,
    text=string("Sentence describing the event: what, when and optionally where."),
    sendUpdates=SEND_UPDATES,
)
tool(
    "calendarMoveEvent",
    "Moves an event to another calendar, changing its organizer. Only default events can be moved.",
    required=["eventId", "destination"],
    calendarId=CALENDAR_ID,
    eventId=EVENT_ID,
    destination=string("ID of the calendar to move the event to."),
    sendUpdates=SEND_UPDATES,
)
tool(
    "calendarQueryFreeBusy",
    "Returns the busy time ranges of a set of calendars between two times, to find a slot when everyone is free.",
    required=["timeMin", "timeMax", "items"],
    timeMin=string("Start of the interval, RFC 3339.", fmt="date-time"),
    timeMax=string("End of the interval, RFC 3339.", fmt="date-time"),
    items=strings(
        'Calendar IDs or email addresses to query, e.g. ["primary", "ana@example.com"].',
        min_items=1,
        max_items=50,
    ),
    timeZone=string("Time zone used in the response.", default="UTC"),
)
tool(
    "calendarListCalendars",
    "Lists the calendars in the user's calendar list with their IDs, names, colours and access roles.",
    minAccessRole=string(
        "Only calendars on which the user has at least this role.",
        enum=["freeBusyReader", "reader", "writer", "owner"],
    ),
    showHidden=boolean("Include calendars hidden from the list.", default=False),
)
tool(
    "calendarCreateCalendar",
    "Creates a new secondary Google Calendar owned by the user, e.g. for a project or shared rota.",
    required=["summary"],
    summary=string("Name of the calendar."),
    description=string("Description of the calendar."),
    timeZone=string("IANA time zone of the calendar, e.g. Asia/Tokyo."),
)
tool(
    "calendarRespondToEvent",
    "Sets the user's RSVP on an event they were invited to: accepted, declined or tentative.",
    required=["eventId", "responseStatus"],
    calendarId=CALENDAR_ID,
    eventId=EVENT_ID,
    responseStatus=string("The user's response.", enum=["accepted", "declined", "tentative"]),
    comment=string("Note sent to the organizer with the response."),
)

# --- Outlook Calendar ------------------------------------------------------------------

OUTLOOK_EVENT = string("ID of the event in the user's Outlook calendar.")
ATTENDEES = array(
    obj(
        "An attendee.",
        required=["email"],
        email=string("Email address of the attendee.", fmt="email"),
        name=string("Display name."),
        type=string(
            "Attendance type; resource for rooms and equipment.",
            enum=["required", "optional", "resource"],
            default="required",
        ),
    ),
    "People, rooms or equipment to invite.",
)

tool(
    "outlook_calendar_list_events",
    "Lists events in the user's Outlook calendar within a time window, with recurring events expanded into occurrences.",
    required=["start_datetime", "end_datetime"],
    start_datetime=string(
        "Start of the window, ISO 8601, e.g. 2024-06-03T00:00:00.", fmt="date-time"
    ),
    end_datetime=string("End of the window, ISO 8601.", fmt="date-time"),
    calendar_id=string("ID of a specific calendar; defaults to the user's default calendar."),
    time_zone=string("Windows or IANA time zone for returned times, e.g. Pacific Standard Time."),
    top=integer("Maximum number of events to return.", minimum=1, maximum=1000, default=50),
)
tool(
    "outlook_calendar_create_event",
    "Creates an event in the user's Outlook calendar and sends invitations to attendees. Can create a Teams meeting for it.",
    required=["subject", "start", "end"],
    subject=string("Subject of the event."),
    start=string(
        "Start date and time without offset, e.g. 2024-06-03T14:00:00; interpreted in time_zone.",
        fmt="date-time",
    ),
    end=string("End date and time without offset.", fmt="date-time"),
    time_zone=string(
        "Time zone of start and end, e.g. W. Europe Standard Time or Europe/Paris.", default="UTC"
    ),
    body=string("Body of the event."),
    body_content_type=string("Format of body.", enum=["text", "html"], default="text"),
    location=string("Display name of the location."),
    attendees=ATTENDEES,
    is_online_meeting=boolean("Create an online meeting for the event.", default=False),
    online_meeting_provider=string(
        "Online meeting service.",
        enum=["teamsForBusiness", "skypeForBusiness", "skypeForConsumer"],
        default="teamsForBusiness",
    ),
    show_as=string(
        "How the time shows in the organizer's free/busy.",
        enum=["free", "tentative", "busy", "oof", "workingElsewhere"],
        default="busy",
    ),
    is_all_day=boolean("All-day event; start and end must then be midnight.", default=False),
    reminder_minutes_before_start=integer(
        "Minutes before the start to show a reminder.", minimum=0, default=15
    ),
)
tool(
    "outlook_calendar_update_event",
    "Updates an Outlook calendar event; attendees receive an updated invitation when time, place or attendees change.",
    required=["event_id"],
    event_id=OUTLOOK_EVENT,
    subject=string("New subject."),
    start=string("New start date and time.", fmt="date-time"),
    end=string("New end date and time.", fmt="date-time"),
    time_zone=string("Time zone of start and end."),
    location=string("New location."),
    body=string("New body."),
    attendees=ATTENDEES,
)
tool(
    "outlook_calendar_cancel_event",
    "Cancels a meeting the user organizes and sends a cancellation message to all attendees.",
    required=["event_id"],
    event_id=OUTLOOK_EVENT,
    comment=string("Message to include in the cancellation."),
)
tool(
    "outlook_calendar_respond_to_event",
    "Accepts, tentatively accepts or declines a meeting invitation, optionally proposing a new time.",
    required=["event_id", "response"],
    event_id=OUTLOOK_EVENT,
    response=string("The response to send.", enum=["accept", "tentativelyAccept", "decline"]),
    comment=string("Note to the organizer."),
    send_response=boolean("Send the response to the organizer.", default=True),
    proposed_start=string("Proposed new start, for tentativelyAccept or decline.", fmt="date-time"),
    proposed_end=string("Proposed new end.", fmt="date-time"),
)
tool(
    "outlook_calendar_find_meeting_times",
    "Suggests meeting times when the attendees and any requested rooms are available, based on their work hours and calendars.",
    required=["attendees", "duration_minutes"],
    attendees=strings("Email addresses of the people who must attend.", fmt="email", min_items=1),
    duration_minutes=integer("Length of the meeting.", minimum=5, maximum=1440, default=30),
    window_start=string("Earliest acceptable start, ISO 8601.", fmt="date-time"),
    window_end=string("Latest acceptable end, ISO 8601.", fmt="date-time"),
    activity_domain=string(
        "Hours to consider: attendees' work hours, personal hours, or any time.",
        enum=["work", "personal", "unrestricted"],
        default="work",
    ),
    minimum_attendee_percentage=number(
        "Lowest share of attendees (0-100) who must be free for a slot to be suggested.",
        minimum=0,
        maximum=100,
        default=100,
    ),
    max_candidates=integer("Maximum number of suggestions.", minimum=1, maximum=20, default=5),
)
tool(
    "outlook_calendar_get_schedule",
    "Gets the free/busy availability of users, distribution lists or rooms over a time window.",
    required=["schedules", "start", "end"],
    schedules=strings(
        "Email addresses of the users, lists or room mailboxes.",
        fmt="email",
        min_items=1,
        max_items=100,
    ),
    start=string("Start of the window.", fmt="date-time"),
    end=string("End of the window.", fmt="date-time"),
    time_zone=string("Time zone of start and end.", default="UTC"),
    interval_minutes=integer(
        "Length of each slot in the returned availability view.",
        minimum=5,
        maximum=1440,
        default=30,
    ),
)
tool(
    "outlook_calendar_list_calendars",
    "Lists the user's Outlook calendars, including calendars shared with them, with IDs, names and owners.",
    include_shared=boolean(
        "Include calendars other people have shared with the user.", default=True
    ),
)
tool(
    "outlook_calendar_forward_event",
    "Forwards a meeting invitation to other people on behalf of the attendee or organizer.",
    required=["event_id", "to_recipients"],
    event_id=OUTLOOK_EVENT,
    to_recipients=strings(
        "Email addresses to forward the invitation to.", fmt="email", min_items=1
    ),
    comment=string("Message to include with the forwarded invitation."),
)

# --- Gmail -----------------------------------------------------------------------------

MESSAGE_ID = string("Gmail message ID, e.g. 18f2a3b4c5d6e7f8.")

tool(
    "gmail_send_email",
    "Sends an email from the user's Gmail account, with optional CC, BCC and file attachments.",
    required=["to", "subject", "body"],
    to=strings("Recipient email addresses.", fmt="email", min_items=1),
    cc=strings("Carbon-copy recipients.", fmt="email"),
    bcc=strings("Blind carbon-copy recipients.", fmt="email"),
    subject=string("Subject line."),
    body=string("Body of the email."),
    is_html=boolean("Treat body as HTML instead of plain text.", default=False),
    attachments=strings("Paths of local files to attach; at most 25 MB in total."),
    reply_to=string("Address replies should go to, if not the sender.", fmt="email"),
)
tool(
    "gmail_search_messages",
    "Searches the mailbox with Gmail search operators and returns matching message IDs, senders, subjects and snippets.",
    required=["query"],
    query=string(
        "Gmail search query, e.g. 'from:billing@stripe.com has:attachment after:2024/05/01 is:unread'."
    ),
    max_results=integer(
        "Maximum number of messages to return.", minimum=1, maximum=500, default=20
    ),
    label_ids=strings('Only messages with all of these label IDs, e.g. ["INBOX", "IMPORTANT"].'),
    include_spam_trash=boolean("Also search Spam and Trash.", default=False),
    page_token=string("Token for the next page of results."),
)
tool(
    "gmail_get_message",
    "Reads one email: headers, plain-text and HTML body, labels and the list of attachments.",
    required=["message_id"],
    message_id=MESSAGE_ID,
    format=string(
        "How much of the message to return.",
        enum=["full", "metadata", "minimal", "raw"],
        default="full",
    ),
)
tool(
    "gmail_get_thread",
    "Reads a whole email conversation (thread) with all its messages in order.",
    required=["thread_id"],
    thread_id=string("ID of the thread."),
    format=string(
        "How much of each message to return.", enum=["full", "metadata", "minimal"], default="full"
    ),
)
tool(
    "gmail_reply_to_message",
    "Replies to an email within its thread, keeping the subject and threading headers.",
    required=["message_id", "body"],
    message_id=MESSAGE_ID,
    body=string("Text of the reply."),
    reply_all=boolean("Reply to all recipients, not only the sender.", default=False),
    is_html=boolean("Treat body as HTML.", default=False),
)
tool(
    "gmail_create_draft",
    "Saves an email as a draft without sending it, optionally as a reply in an existing thread.",
    required=["to", "subject", "body"],
    to=strings("Recipient email addresses.", fmt="email"),
    cc=strings("Carbon-copy recipients.", fmt="email"),
    subject=string("Subject line."),
    body=string("Body of the email."),
    thread_id=string("Thread to place the draft in, for a reply."),
)
tool(
    "gmail_send_draft",
    "Sends a previously saved draft.",
    required=["draft_id"],
    draft_id=string("ID of the draft, e.g. r-5372436432654756353."),
)
tool(
    "gmail_modify_labels",
    "Adds or removes labels on messages. Removing UNREAD marks them read; removing INBOX archives them.",
    required=["message_ids"],
    message_ids=strings("IDs of the messages to change.", min_items=1, max_items=1000),
    add_label_ids=strings('Label IDs to add, e.g. ["STARRED", "Label_12"].'),
    remove_label_ids=strings('Label IDs to remove, e.g. ["UNREAD", "INBOX"].'),
)
tool(
    "gmail_trash_message",
    "Moves a message to Trash; it is deleted permanently after 30 days.",
    required=["message_id"],
    message_id=MESSAGE_ID,
)
tool(
    "gmail_list_labels",
    "Lists the mailbox's labels, system ones (INBOX, SPAM, STARRED) and user-created ones, with their IDs.",
    include_counts=boolean("Include total and unread message counts per label.", default=False),
)
tool(
    "gmail_create_label",
    "Creates a user label, for example to file messages from a project or client.",
    required=["name"],
    name=string("Display name; use slashes for nesting, e.g. Clients/Acme."),
    label_list_visibility=string(
        "Whether the label shows in the label list.",
        enum=["labelShow", "labelShowIfUnread", "labelHide"],
        default="labelShow",
    ),
    message_list_visibility=string(
        "Whether the label shows on messages in the list.", enum=["show", "hide"], default="show"
    ),
    background_color=string("Background colour as hex from Gmail's palette, e.g. #16a765."),
)
tool(
    "gmail_get_attachment",
    "Downloads an attachment of a message and saves it to a local file.",
    required=["message_id", "attachment_id", "save_to"],
    message_id=MESSAGE_ID,
    attachment_id=string("ID of the attachment, from gmail_get_message."),
    save_to=string("Local path to write the file to."),
)
tool(
    "gmail_create_filter",
    "Creates a filter that acts on incoming mail matching criteria: label it, archive it, star it or forward it.",
    from_address=string("Match messages from this sender."),
    to_address=string("Match messages to this recipient."),
    subject=string("Match messages whose subject contains this text."),
    query=string("Match messages satisfying this Gmail search query."),
    has_attachment=boolean("Match only messages with attachments."),
    add_label_ids=strings("Labels to apply to matching messages."),
    remove_label_ids=strings("Labels to remove, e.g. INBOX to skip the inbox."),
    forward_to=string(
        "Address to forward matches to; it must be a verified forwarding address.", fmt="email"
    ),
)

# --- Google Drive ----------------------------------------------------------------------

FILE_ID = string("ID of the Drive file or folder, e.g. 1A2b3C4d5E6f7G8h9I0jKlMnOpQrStUvW.")

tool(
    "gdrive_search_files",
    "Searches Google Drive for files and folders with Drive query syntax and returns their IDs, names, types and owners.",
    query=string(
        "Drive query, e.g. \"name contains 'budget' and mimeType = 'application/vnd.google-apps.spreadsheet' and trashed = false\"."
    ),
    page_size=integer("Maximum number of files to return.", minimum=1, maximum=1000, default=50),
    order_by=string("Comma-separated sort keys, e.g. 'modifiedTime desc,name'."),
    corpora=string(
        "Which files to search.", enum=["user", "drive", "domain", "allDrives"], default="user"
    ),
    drive_id=string("ID of a shared drive, with corpora=drive."),
    page_token=string("Token for the next page."),
)
tool(
    "gdrive_get_file_metadata",
    "Gets a Drive file's metadata: name, MIME type, size, owners, parents, sharing and modification time.",
    required=["file_id"],
    file_id=FILE_ID,
    fields=string(
        "Comma-separated fields to return.",
        default="id,name,mimeType,size,modifiedTime,owners,parents,webViewLink",
    ),
)
tool(
    "gdrive_download_file",
    "Downloads a file from Drive to a local path. Google Docs, Sheets and Slides are exported to the chosen format.",
    required=["file_id", "destination_path"],
    file_id=FILE_ID,
    destination_path=string("Local path to save the file to."),
    export_mime_type=string(
        "Export format for Google Workspace files; ignored for other files.",
        enum=[
            "application/pdf",
            "text/plain",
            "text/csv",
            "text/markdown",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ],
    ),
)
tool(
    "gdrive_upload_file",
    "Uploads a local file to Google Drive, optionally converting it to a Google Docs, Sheets or Slides file.",
    required=["local_path"],
    local_path=string("Path of the local file."),
    name=string("Name in Drive; defaults to the local file name."),
    parent_folder_id=string("ID of the folder to upload into; defaults to My Drive."),
    mime_type=string("MIME type of the content; detected from the file when omitted."),
    convert=boolean(
        "Convert to the matching Google Workspace format (e.g. .docx to Docs).", default=False
    ),
)
tool(
    "gdrive_create_folder",
    "Creates a folder in Google Drive.",
    required=["name"],
    name=string("Name of the folder."),
    parent_id=string("ID of the parent folder; defaults to My Drive."),
)
tool(
    "gdrive_update_file",
    "Renames a Drive file, changes its description or stars it, or moves it between folders.",
    required=["file_id"],
    file_id=FILE_ID,
    name=string("New name."),
    description=string("New description."),
    starred=boolean("Star or unstar the file."),
    add_parents=strings("IDs of folders to add the file to."),
    remove_parents=strings("IDs of folders to remove the file from."),
)
tool(
    "gdrive_copy_file",
    "Makes a copy of a Drive file, e.g. to start a new document from a template.",
    required=["file_id"],
    file_id=FILE_ID,
    name=string("Name of the copy; defaults to 'Copy of <name>'."),
    parent_id=string("Folder to put the copy in."),
)
tool(
    "gdrive_share_file",
    "Shares a Drive file or folder with a user, group, domain or anyone with the link.",
    required=["file_id", "role", "type"],
    file_id=FILE_ID,
    role=string(
        "Access level to grant.",
        enum=["reader", "commenter", "writer", "fileOrganizer", "organizer", "owner"],
    ),
    type=string("Who the permission is for.", enum=["user", "group", "domain", "anyone"]),
    email_address=string("Email of the user or group, for type user or group.", fmt="email"),
    domain=string("Domain name, for type domain, e.g. example.com."),
    send_notification_email=boolean("Email the person about the share.", default=True),
    email_message=string("Message to include in the notification email."),
)
tool(
    "gdrive_list_permissions",
    "Lists who has access to a Drive file and with which role.",
    required=["file_id"],
    file_id=FILE_ID,
)
tool(
    "gdrive_delete_file",
    "Moves a Drive file to the trash, or deletes it permanently, skipping the trash.",
    required=["file_id"],
    file_id=FILE_ID,
    permanent=boolean("Delete permanently instead of trashing; cannot be undone.", default=False),
)
tool(
    "gdrive_list_revisions",
    "Lists the saved revisions of a Drive file with their modification times and authors.",
    required=["file_id"],
    file_id=FILE_ID,
    page_size=integer(
        "Maximum number of revisions to return.", minimum=1, maximum=1000, default=200
    ),
)

# --- Dropbox ---------------------------------------------------------------------------

DBX_PATH = string(
    "Path in the user's Dropbox, starting with a slash, e.g. /Reports/2024/q2.pdf, or an id:... file ID."
)

tool(
    "dropbox_upload_file",
    "Uploads a local file to Dropbox. Files over 150 MB are sent in an upload session automatically.",
    required=["local_path", "dropbox_path"],
    local_path=string("Path of the local file."),
    dropbox_path=DBX_PATH,
    mode=string(
        "What to do if a file exists at the path.",
        enum=["add", "overwrite", "update"],
        default="add",
    ),
    autorename=boolean("On conflict, rename the upload, e.g. 'report (1).pdf'.", default=False),
    mute=boolean("Do not notify the user's devices about the change.", default=False),
)
tool(
    "dropbox_download_file",
    "Downloads a file from Dropbox to a local path.",
    required=["path", "local_path"],
    path=DBX_PATH,
    local_path=string("Local path to write the file to."),
    rev=string("Download this revision instead of the latest."),
)
tool(
    "dropbox_list_folder",
    "Lists the files and folders at a Dropbox path with sizes and modification times.",
    required=["path"],
    path=string("Folder path; use an empty string for the root.", default=""),
    recursive=boolean("Include the contents of subfolders.", default=False),
    include_deleted=boolean("Include entries for deleted files.", default=False),
    limit=integer(
        "Approximate maximum number of entries per call.", minimum=1, maximum=2000, default=500
    ),
    cursor=string("Cursor from a previous call, to continue listing."),
)
tool(
    "dropbox_search",
    "Searches file and folder names, and file contents where available, in the user's Dropbox.",
    required=["query"],
    query=string("Text to search for."),
    path=string("Limit the search to this folder."),
    file_extensions=strings('Only files with these extensions, e.g. ["pdf", "docx"].'),
    file_categories=strings(
        "Only these kinds of file.",
        enum=[
            "image",
            "document",
            "pdf",
            "spreadsheet",
            "presentation",
            "audio",
            "video",
            "folder",
            "paper",
            "others",
        ],
    ),
    max_results=integer("Maximum number of matches.", minimum=1, maximum=1000, default=100),
)
tool(
    "dropbox_create_folder",
    "Creates a folder at a Dropbox path, including any missing parent folders.",
    required=["path"],
    path=DBX_PATH,
    autorename=boolean(
        "If the folder exists, create one with a new name instead of failing.", default=False
    ),
)
tool(
    "dropbox_move",
    "Moves or renames a file or folder in Dropbox.",
    required=["from_path", "to_path"],
    from_path=string("Current path."),
    to_path=string("New path."),
    autorename=boolean("Rename on conflict instead of failing.", default=False),
    allow_ownership_transfer=boolean(
        "Allow moves that change the file's owner, e.g. into a shared folder.", default=False
    ),
)
tool(
    "dropbox_copy",
    "Copies a file or folder to a new location in Dropbox.",
    required=["from_path", "to_path"],
    from_path=string("Path to copy."),
    to_path=string("Destination path."),
    autorename=boolean("Rename on conflict instead of failing.", default=False),
)
tool(
    "dropbox_delete",
    "Deletes a file or folder; it can be restored from the Dropbox web interface for a while.",
    required=["path"],
    path=DBX_PATH,
)
tool(
    "dropbox_create_shared_link",
    "Creates a shared link to a file or folder, optionally protected by a password or expiring at a set time.",
    required=["path"],
    path=DBX_PATH,
    audience=string("Who can open the link.", enum=["public", "team", "no_one"], default="public"),
    access=string("What people with the link can do.", enum=["viewer", "editor"], default="viewer"),
    link_password=string("Password required to open the link."),
    expires=string("When the link stops working, ISO 8601 UTC.", fmt="date-time"),
    allow_download=boolean("Let viewers download the file.", default=True),
)
tool(
    "dropbox_list_revisions",
    "Lists previous versions of a Dropbox file with their revision IDs, sizes and dates.",
    required=["path"],
    path=DBX_PATH,
    limit=integer("Maximum number of revisions.", minimum=1, maximum=100, default=10),
)
tool(
    "dropbox_restore_file",
    "Restores a Dropbox file to an earlier revision.",
    required=["path", "rev"],
    path=DBX_PATH,
    rev=string("Revision ID to restore, from dropbox_list_revisions."),
)

# --- Local filesystem ------------------------------------------------------------------

FS_PATH = string("Path on the local machine, absolute or relative to the allowed root directory.")

tool(
    "fs_read_file",
    "Reads a text file from the local filesystem. Large files can be read in pieces with offset and limit.",
    required=["path"],
    path=FS_PATH,
    encoding=string("Text encoding.", default="utf-8"),
    offset=integer("Line number to start reading at (1-based).", minimum=1, default=1),
    limit=integer("Maximum number of lines to read.", minimum=1),
)
tool(
    "fs_write_file",
    "Writes text to a file, creating it or overwriting it completely.",
    required=["path", "content"],
    path=FS_PATH,
    content=string("Full new content of the file."),
    encoding=string("Text encoding.", default="utf-8"),
    create_parents=boolean("Create missing parent directories.", default=True),
    append=boolean("Append to the end of the file instead of overwriting it.", default=False),
)
tool(
    "fs_edit_file",
    "Makes exact text replacements in a file and returns a unified diff of the change. Each old_text must occur exactly once.",
    required=["path", "edits"],
    path=FS_PATH,
    edits=array(
        obj(
            "One replacement.",
            required=["old_text", "new_text"],
            old_text=string("Text to find; must match exactly, including whitespace."),
            new_text=string("Text to put in its place."),
        ),
        "Replacements, applied in order.",
        min_items=1,
    ),
    dry_run=boolean("Only show the diff; leave the file unchanged.", default=False),
)
tool(
    "fs_list_directory",
    "Lists the entries of a directory, marking each as file or directory, with sizes and modification times.",
    required=["path"],
    path=FS_PATH,
    show_hidden=boolean("Include entries whose names start with a dot.", default=False),
    depth=integer(
        "How many levels to descend; 1 lists only the directory itself.",
        minimum=1,
        maximum=10,
        default=1,
    ),
)
tool(
    "fs_create_directory",
    "Creates a directory, and its parents if needed. Succeeds quietly if it already exists.",
    required=["path"],
    path=FS_PATH,
)
tool(
    "fs_move",
    "Moves or renames a file or directory.",
    required=["source", "destination"],
    source=string("Current path."),
    destination=string("New path."),
    overwrite=boolean("Replace the destination if it exists.", default=False),
)
tool(
    "fs_copy",
    "Copies a file, or a directory with everything in it.",
    required=["source", "destination"],
    source=string("Path to copy."),
    destination=string("Path of the copy."),
    overwrite=boolean("Replace the destination if it exists.", default=False),
    preserve_metadata=boolean("Keep modification times and permissions.", default=True),
)
tool(
    "fs_delete",
    "Deletes a file, or a directory when recursive is set. Deleted files are not moved to a trash.",
    required=["path"],
    path=FS_PATH,
    recursive=boolean("Delete a directory and everything in it.", default=False),
)
tool(
    "fs_search_files",
    "Finds files whose paths match a glob pattern under a directory, e.g. all **/*.py files.",
    required=["pattern"],
    pattern=string("Glob pattern, e.g. **/*.md or src/**/test_*.py."),
    root=string("Directory to search under.", default="."),
    exclude=strings('Glob patterns to skip, e.g. ["**/node_modules/**", "**/.git/**"].'),
    max_results=integer("Stop after this many matches.", minimum=1, default=200),
)
tool(
    "fs_grep",
    "Searches file contents for a regular expression and returns matching lines with file names and line numbers.",
    required=["pattern"],
    pattern=string("Regular expression to search for, e.g. 'def \\w+_handler'."),
    path=string("File or directory to search.", default="."),
    include=string("Only search files matching this glob, e.g. *.ts."),
    case_insensitive=boolean("Ignore case.", default=False),
    context_lines=integer(
        "Lines of context to show around each match.", minimum=0, maximum=20, default=0
    ),
    max_matches=integer("Stop after this many matching lines.", minimum=1, default=500),
)
tool(
    "fs_get_file_info",
    "Returns metadata for a path: type, size, permissions, owner and creation, modification and access times.",
    required=["path"],
    path=FS_PATH,
    follow_symlinks=boolean(
        "Describe the target of a symbolic link rather than the link.", default=True
    ),
)
tool(
    "fs_compute_checksum",
    "Computes a cryptographic hash of a file, e.g. to verify a download.",
    required=["path"],
    path=FS_PATH,
    algorithm=string(
        "Hash algorithm.", enum=["md5", "sha1", "sha256", "sha512", "blake2b"], default="sha256"
    ),
)

# --- Stripe ----------------------------------------------------------------------------

CUSTOMER = string("ID of the Stripe customer, e.g. cus_NffrFeUfNV2Hib.")
CURRENCY = string(
    "Three-letter ISO currency code in lowercase, e.g. usd, eur, gbp.", pattern="^[a-z]{3}$"
)
AMOUNT = integer(
    "Amount in the currency's smallest unit, e.g. 1999 for $19.99 or 500 for ¥500.", minimum=0
)
STRIPE_METADATA = obj(
    'Up to 50 key-value pairs stored with the object, e.g. {"order_id": "6735"}.',
    additional={"type": "string"},
)

tool(
    "stripe_create_customer",
    "Creates a customer in Stripe to save payment methods and track charges, subscriptions and invoices.",
    email=string("Customer's email address.", fmt="email"),
    name=string("Full name or business name."),
    phone=string("Phone number."),
    description=string("Internal note about the customer."),
    payment_method=string("ID of a PaymentMethod to attach, e.g. pm_card_visa."),
    metadata=STRIPE_METADATA,
)
tool(
    "stripe_update_customer",
    "Updates a Stripe customer's details or sets their default payment method for invoices.",
    required=["customer"],
    customer=CUSTOMER,
    email=string("New email address.", fmt="email"),
    name=string("New name."),
    default_payment_method=string("PaymentMethod used for invoices and subscriptions by default."),
    metadata=STRIPE_METADATA,
)
tool(
    "stripe_list_customers",
    "Lists Stripe customers, newest first, optionally only those with a given email.",
    email=string("Exact, case-sensitive email to filter by.", fmt="email"),
    limit=integer("Number of customers to return.", minimum=1, maximum=100, default=10),
    starting_after=string("Customer ID to continue listing after, for pagination."),
)
tool(
    "stripe_create_payment_intent",
    "Creates a PaymentIntent to collect a payment from a customer. Confirm it with a payment method to charge the card.",
    required=["amount", "currency"],
    amount=AMOUNT,
    currency=CURRENCY,
    customer=CUSTOMER,
    payment_method=string("ID of the PaymentMethod to charge."),
    confirm=boolean("Confirm the PaymentIntent immediately.", default=False),
    capture_method=string(
        "automatic charges at once; manual only authorizes, to capture later.",
        enum=["automatic", "automatic_async", "manual"],
        default="automatic",
    ),
    description=string("Description shown in the Dashboard and on receipts."),
    receipt_email=string("Where to send the receipt.", fmt="email"),
    statement_descriptor_suffix=string(
        "Text appended to the statement descriptor on card statements.", max_length=22
    ),
    metadata=STRIPE_METADATA,
)
tool(
    "stripe_capture_payment_intent",
    "Captures the funds of a PaymentIntent that was authorized with capture_method=manual.",
    required=["payment_intent"],
    payment_intent=string("ID of the PaymentIntent, e.g. pi_3MtwBwLkdIwHu7ix28a3tqPa."),
    amount_to_capture=integer(
        "Amount to capture, at most the authorized amount; defaults to all of it.", minimum=1
    ),
)
tool(
    "stripe_create_refund",
    "Refunds a charge fully or partly. Refunds go back to the original payment method and may take 5-10 business days to appear.",
    required=["payment_intent"],
    payment_intent=string("ID of the PaymentIntent to refund."),
    amount=integer(
        "Amount to refund in the smallest currency unit; defaults to the full remaining amount.",
        minimum=1,
    ),
    reason=string(
        "Why the payment is refunded.", enum=["duplicate", "fraudulent", "requested_by_customer"]
    ),
    metadata=STRIPE_METADATA,
)
tool(
    "stripe_create_product",
    "Creates a product (a good or service you sell); prices are attached to it separately.",
    required=["name"],
    name=string("Name shown to customers."),
    description=string("Description shown to customers."),
    active=boolean("Whether the product can be bought.", default=True),
    images=strings("URLs of up to 8 product images.", fmt="uri", max_items=8),
    tax_code=string(
        "Stripe Tax code, e.g. txcd_10000000 for general electronically supplied services."
    ),
)
tool(
    "stripe_create_price",
    "Creates a one-time or recurring price for a product.",
    required=["product", "unit_amount", "currency"],
    product=string("ID of the product, e.g. prod_NWjs8kKbJWmuuc."),
    unit_amount=AMOUNT,
    currency=CURRENCY,
    recurring_interval=string(
        "Billing frequency for a recurring price; omit for a one-time price.",
        enum=["day", "week", "month", "year"],
    ),
    interval_count=integer(
        "Number of intervals between billings, e.g. 3 with month for quarterly.",
        minimum=1,
        default=1,
    ),
    nickname=string("Internal name of the price."),
    lookup_key=string("Key to fetch the price by, e.g. pro_monthly."),
)
tool(
    "stripe_create_subscription",
    "Subscribes a customer to one or more recurring prices. The first invoice is created and charged immediately unless there is a trial.",
    required=["customer", "items"],
    customer=CUSTOMER,
    items=array(
        obj(
            "A subscription item.",
            required=["price"],
            price=string("ID of a recurring price."),
            quantity=integer("Quantity, e.g. number of seats.", minimum=1, default=1),
        ),
        "Prices to subscribe to.",
        min_items=1,
        max_items=20,
    ),
    trial_period_days=integer(
        "Days of free trial before the first charge.", minimum=0, maximum=730
    ),
    collection_method=string(
        "Charge the default payment method, or email invoices to pay.",
        enum=["charge_automatically", "send_invoice"],
        default="charge_automatically",
    ),
    days_until_due=integer("Days to pay an invoice, with send_invoice.", minimum=0),
    coupon=string("ID of a coupon to apply."),
    metadata=STRIPE_METADATA,
)
tool(
    "stripe_cancel_subscription",
    "Cancels a customer's subscription, immediately or at the end of the current billing period.",
    required=["subscription"],
    subscription=string("ID of the subscription, e.g. sub_1MowQVLkdIwHu7ixeRlqHVzs."),
    at_period_end=boolean(
        "Keep the subscription active until the end of the paid period.", default=False
    ),
    invoice_now=boolean(
        "When cancelling immediately, invoice any pending usage now.", default=False
    ),
    prorate=boolean("When cancelling immediately, credit the unused time.", default=False),
    cancellation_comment=string("Customer's reason for cancelling, stored for reporting."),
)
tool(
    "stripe_create_invoice",
    "Creates a draft invoice for a customer, collecting their pending invoice items. Finalize it to send or charge it.",
    required=["customer"],
    customer=CUSTOMER,
    collection_method=string(
        "Charge automatically or email the invoice for payment.",
        enum=["charge_automatically", "send_invoice"],
        default="charge_automatically",
    ),
    days_until_due=integer("Days until the invoice is due, with send_invoice.", minimum=0),
    description=string("Memo shown on the invoice."),
    auto_advance=boolean(
        "Let Stripe finalize and collect the invoice automatically.", default=True
    ),
    metadata=STRIPE_METADATA,
)
tool(
    "stripe_add_invoice_item",
    "Adds a line item to a customer's next or draft invoice, such as a one-off fee or a credit.",
    required=["customer"],
    customer=CUSTOMER,
    invoice=string("ID of a draft invoice to add to; defaults to the customer's next invoice."),
    price=string("ID of a price to bill."),
    amount=integer(
        "Amount in the smallest currency unit if no price is given; negative for a credit."
    ),
    currency=CURRENCY,
    description=string("Line item description."),
    quantity=integer("Quantity of the price.", minimum=1, default=1),
)
tool(
    "stripe_finalize_invoice",
    "Finalizes a draft invoice so it can be paid; with send_invoice collection it is emailed to the customer.",
    required=["invoice"],
    invoice=string("ID of the draft invoice, e.g. in_1MtHbELkdIwHu7ixl4OzzPMv."),
    auto_advance=boolean(
        "Attempt payment or send the invoice automatically after finalizing.", default=True
    ),
)
tool(
    "stripe_create_payment_link",
    "Creates a shareable Stripe-hosted checkout link for one or more prices.",
    required=["line_items"],
    line_items=array(
        obj(
            "A price and quantity.",
            required=["price", "quantity"],
            price=string("ID of the price."),
            quantity=integer("Quantity.", minimum=1),
        ),
        "Items sold through the link.",
        min_items=1,
        max_items=20,
    ),
    allow_promotion_codes=boolean("Let customers enter promotion codes.", default=False),
    redirect_url=string(
        "Where to send the customer after payment; defaults to a Stripe confirmation page.",
        fmt="uri",
    ),
)
tool(
    "stripe_create_coupon",
    "Creates a coupon that takes a percentage or a fixed amount off invoices, once, for several months or forever.",
    required=["duration"],
    percent_off=number("Percentage taken off, e.g. 25.5.", minimum=0, maximum=100),
    amount_off=integer(
        "Amount taken off in the smallest currency unit; needs currency.", minimum=1
    ),
    currency=CURRENCY,
    duration=string("How long the discount lasts.", enum=["once", "repeating", "forever"]),
    duration_in_months=integer("Months the discount lasts, with repeating.", minimum=1),
    max_redemptions=integer("Maximum number of times the coupon can be redeemed.", minimum=1),
    name=string("Name shown on invoices and receipts, e.g. SUMMER25."),
)
tool(
    "stripe_retrieve_balance",
    "Returns the Stripe account's available and pending balance per currency.",
    stripe_account=string(
        "Connected account ID (acct_...) to read the balance of, instead of your own."
    ),
)

# --- PayPal ----------------------------------------------------------------------------

PAYPAL_AMOUNT = string(
    "Amount as a decimal string, e.g. 49.99.", pattern="^[0-9]+(\\.[0-9]{1,2})?$"
)
PAYPAL_CURRENCY = string(
    "Three-letter ISO currency code, e.g. USD.", default="USD", pattern="^[A-Z]{3}$"
)

tool(
    "paypal_create_order",
    "Creates a PayPal checkout order and returns the approval link the buyer must visit to pay.",
    required=["amount"],
    intent=string(
        "Capture the payment right after approval, or only authorize it.",
        enum=["CAPTURE", "AUTHORIZE"],
        default="CAPTURE",
    ),
    amount=PAYPAL_AMOUNT,
    currency_code=PAYPAL_CURRENCY,
    description=string("Description of the purchase, shown to the buyer."),
    reference_id=string("Your own reference for the purchase, e.g. an order number."),
    return_url=string("Where PayPal sends the buyer after approval.", fmt="uri"),
    cancel_url=string("Where PayPal sends the buyer if they cancel.", fmt="uri"),
)
tool(
    "paypal_get_order",
    "Shows the details and status of a PayPal order (CREATED, APPROVED, COMPLETED, ...).",
    required=["order_id"],
    order_id=string("ID of the order, e.g. 5O190127TN364715T."),
)
tool(
    "paypal_capture_order",
    "Captures payment for an order the buyer has approved, moving the money to the merchant.",
    required=["order_id"],
    order_id=string("ID of the approved order."),
)
tool(
    "paypal_refund_capture",
    "Refunds a captured payment, fully or for a partial amount.",
    required=["capture_id"],
    capture_id=string("ID of the captured payment."),
    amount=PAYPAL_AMOUNT,
    currency_code=PAYPAL_CURRENCY,
    note_to_payer=string("Reason shown to the buyer.", max_length=255),
    invoice_id=string("Your invoice number for the refund."),
)
tool(
    "paypal_create_payout",
    "Sends money to up to 15,000 recipients in one batch, by email, phone number or PayPal ID.",
    required=["items"],
    sender_batch_id=string("Your unique ID for the batch, which prevents duplicate payouts."),
    email_subject=string("Subject of the email recipients receive."),
    items=array(
        obj(
            "One payment.",
            required=["receiver", "amount"],
            recipient_type=string(
                "What receiver holds.", enum=["EMAIL", "PHONE", "PAYPAL_ID"], default="EMAIL"
            ),
            receiver=string("Recipient's email, phone number or PayPal ID."),
            amount=PAYPAL_AMOUNT,
            currency=PAYPAL_CURRENCY,
            note=string("Note to the recipient."),
        ),
        "The payments in the batch.",
        min_items=1,
        max_items=15000,
    ),
)
tool(
    "paypal_create_invoice",
    "Creates a draft PayPal invoice with line items for a recipient; send it with paypal_send_invoice.",
    required=["recipient_email", "items"],
    recipient_email=string("Email of the person being billed.", fmt="email"),
    items=array(
        obj(
            "An invoice line.",
            required=["name", "quantity", "unit_amount"],
            name=string("Item name."),
            description=string("Item description."),
            quantity=string("Quantity as a decimal string, e.g. 2."),
            unit_amount=PAYPAL_AMOUNT,
        ),
        "Line items.",
        min_items=1,
    ),
    currency_code=PAYPAL_CURRENCY,
    payment_term=string(
        "When payment is due.",
        enum=["DUE_ON_RECEIPT", "NET_10", "NET_15", "NET_30", "NET_45", "NET_60", "NET_90"],
        default="DUE_ON_RECEIPT",
    ),
    note=string("Note to the recipient."),
    invoice_number=string("Invoice number; generated if omitted."),
)
tool(
    "paypal_send_invoice",
    "Sends a draft invoice to its recipient by email.",
    required=["invoice_id"],
    invoice_id=string("ID of the invoice, e.g. INV2-Z56S-5LLA-Q52L-CPZ5."),
    subject=string("Subject of the email."),
    note=string("Note added to the email."),
    send_to_invoicer=boolean("Also send a copy to the merchant.", default=False),
)
tool(
    "paypal_list_transactions",
    "Lists the account's transactions in a date range (at most 31 days), e.g. to reconcile payments.",
    required=["start_date", "end_date"],
    start_date=string(
        "Start of the range, ISO 8601 with offset, e.g. 2024-05-01T00:00:00-07:00.", fmt="date-time"
    ),
    end_date=string("End of the range, at most 31 days after the start.", fmt="date-time"),
    transaction_status=string(
        "D denied, P pending, S successful, V reversed.", enum=["D", "P", "S", "V"]
    ),
    page_size=integer("Transactions per page.", minimum=1, maximum=500, default=100),
)
tool(
    "paypal_create_subscription",
    "Subscribes a buyer to a billing plan; returns an approval link the buyer must visit.",
    required=["plan_id"],
    plan_id=string("ID of the billing plan, e.g. P-5ML4271244454362WXNWU5NQ."),
    subscriber_email=string("Buyer's email address.", fmt="email"),
    start_time=string("When billing starts; defaults to now.", fmt="date-time"),
    quantity=string("Quantity of the product, as a string."),
)
tool(
    "paypal_cancel_subscription",
    "Cancels an active PayPal subscription; no further payments are taken.",
    required=["subscription_id", "reason"],
    subscription_id=string("ID of the subscription, e.g. I-BW452GLLEP1G."),
    reason=string("Reason for the cancellation.", max_length=128),
)

# --- Shopify ---------------------------------------------------------------------------

PRODUCT_ID = integer("Numeric ID of the product, e.g. 632910392.", minimum=1)
ORDER_ID = integer("Numeric ID of the order (not the #1001 order name).", minimum=1)

tool(
    "shopify_list_products",
    "Lists products in the Shopify store, filtered by title, vendor, type, status or collection.",
    title=string("Only products whose title contains this text."),
    vendor=string("Only products from this vendor."),
    product_type=string("Only products of this type, e.g. Snowboard."),
    status=string("Only products with this status.", enum=["active", "draft", "archived"]),
    collection_id=integer("Only products in this collection."),
    limit=integer("Number of products per page.", minimum=1, maximum=250, default=50),
)
tool(
    "shopify_get_product",
    "Gets a product with its variants, options, images, prices and inventory item IDs.",
    required=["product_id"],
    product_id=PRODUCT_ID,
)
tool(
    "shopify_create_product",
    "Creates a product with variants and images in the Shopify store.",
    required=["title"],
    title=string("Product title."),
    body_html=string("Product description as HTML."),
    vendor=string("Vendor or brand."),
    product_type=string("Product type used for filtering, e.g. T-Shirt."),
    tags=strings('Tags, e.g. ["summer", "cotton"].'),
    status=string(
        "Status of the new product.", enum=["active", "draft", "archived"], default="draft"
    ),
    variants=array(
        obj(
            "A variant.",
            required=["price"],
            price=string("Price as a decimal string, e.g. 29.00."),
            sku=string("Stock keeping unit."),
            option1=string("Value of the first option, e.g. Small."),
            option2=string("Value of the second option, e.g. Blue."),
            inventory_quantity=integer("Starting stock at the default location.", minimum=0),
        ),
        "Variants; a product without them gets one default variant.",
        max_items=100,
    ),
    image_urls=strings("Public URLs of product images.", fmt="uri"),
)
tool(
    "shopify_update_product",
    "Updates a product's title, description, tags, status or SEO fields.",
    required=["product_id"],
    product_id=PRODUCT_ID,
    title=string("New title."),
    body_html=string("New HTML description."),
    tags=strings("Replaces the product's tags."),
    status=string("New status.", enum=["active", "draft", "archived"]),
    seo_title=string("Title tag for search engines."),
    seo_description=string("Meta description for search engines."),
)
tool(
    "shopify_adjust_inventory",
    "Changes the available stock of an inventory item at a location, by a relative adjustment or to an absolute quantity.",
    required=["inventory_item_id", "location_id"],
    inventory_item_id=integer("ID of the variant's inventory item.", minimum=1),
    location_id=integer("ID of the location, e.g. a warehouse or shop.", minimum=1),
    adjustment=integer("Units to add (positive) or remove (negative)."),
    set_quantity=integer(
        "Set the available quantity to exactly this; used instead of adjustment.", minimum=0
    ),
    reason=string(
        "Reason recorded for the change.",
        enum=[
            "correction",
            "cycle_count_available",
            "damaged",
            "received",
            "restock",
            "shrinkage",
            "other",
        ],
        default="correction",
    ),
)
tool(
    "shopify_list_orders",
    "Lists orders with filters for status, payment and fulfillment state, and creation date.",
    status=string("Order status.", enum=["open", "closed", "cancelled", "any"], default="open"),
    financial_status=string(
        "Payment state.",
        enum=[
            "authorized",
            "pending",
            "paid",
            "partially_paid",
            "refunded",
            "voided",
            "partially_refunded",
            "unpaid",
            "any",
        ],
    ),
    fulfillment_status=string(
        "Fulfillment state.", enum=["shipped", "partial", "unshipped", "unfulfilled", "any"]
    ),
    created_at_min=string("Only orders created at or after this time.", fmt="date-time"),
    created_at_max=string("Only orders created at or before this time.", fmt="date-time"),
    limit=integer("Orders per page.", minimum=1, maximum=250, default=50),
)
tool(
    "shopify_get_order",
    "Gets an order with its line items, customer, shipping address, payment and fulfillment status.",
    required=["order_id"],
    order_id=ORDER_ID,
)
tool(
    "shopify_create_fulfillment",
    "Marks an order's items as shipped, with tracking details, and optionally emails the customer.",
    required=["order_id"],
    order_id=ORDER_ID,
    line_item_ids=array(
        {"type": "integer"}, "IDs of line items to fulfill; defaults to all unfulfilled items."
    ),
    tracking_number=string("Carrier tracking number."),
    tracking_company=string("Carrier name, e.g. UPS, USPS, DHL Express, Royal Mail."),
    tracking_url=string("Tracking page URL.", fmt="uri"),
    notify_customer=boolean("Email the customer a shipping confirmation.", default=True),
)
tool(
    "shopify_cancel_order",
    "Cancels an order, optionally refunding the payment and restocking the items.",
    required=["order_id"],
    order_id=ORDER_ID,
    reason=string(
        "Why the order is cancelled.",
        enum=["customer", "fraud", "inventory", "declined", "other"],
        default="other",
    ),
    refund=boolean("Refund the payment to the customer.", default=True),
    restock=boolean("Return the items to inventory.", default=True),
    notify_customer=boolean("Email the customer about the cancellation.", default=False),
)
tool(
    "shopify_create_refund",
    "Refunds some or all line items of an order, and optionally the shipping, to the original payment method.",
    required=["order_id"],
    order_id=ORDER_ID,
    line_items=array(
        obj(
            "A line item to refund.",
            required=["line_item_id", "quantity"],
            line_item_id=integer("ID of the line item."),
            quantity=integer("Units to refund.", minimum=1),
            restock_type=string(
                "What happens to the stock.",
                enum=["no_restock", "cancel", "return"],
                default="return",
            ),
        ),
        "Items to refund.",
    ),
    refund_shipping=boolean("Also refund the full shipping cost.", default=False),
    note=string("Internal note about the refund."),
    notify=boolean("Email the customer a refund notice.", default=True),
)
tool(
    "shopify_create_discount_code",
    "Creates a discount code worth a percentage or a fixed amount off, with usage limits and a validity window.",
    required=["code", "value_type", "value"],
    code=string("Code customers enter at checkout, e.g. WELCOME10."),
    title=string("Internal name of the discount."),
    value_type=string("Kind of discount.", enum=["percentage", "fixed_amount"]),
    value=number("Percentage (e.g. 10) or amount in the store's currency (e.g. 5.00).", minimum=0),
    starts_at=string("When the code becomes valid; defaults to now.", fmt="date-time"),
    ends_at=string("When the code expires.", fmt="date-time"),
    usage_limit=integer("Total number of times the code can be used.", minimum=1),
    once_per_customer=boolean("Each customer can use it once.", default=False),
    minimum_subtotal=number("Minimum order subtotal for the code to apply.", minimum=0),
)
tool(
    "shopify_search_customers",
    "Searches the store's customers by name, email, phone, tag or other fields.",
    required=["query"],
    query=string("Search text, e.g. 'email:bob@example.com' or 'country:Canada tag:vip'."),
    limit=integer("Maximum number of customers to return.", minimum=1, maximum=250, default=50),
)

# --- Weather ---------------------------------------------------------------------------

LOCATION = string(
    "City name with optional country, e.g. 'Lisbon, PT', a postcode, or 'lat,lon' coordinates."
)
UNITS = string(
    "Unit system: metric (°C, m/s), imperial (°F, mph) or standard (K).",
    enum=["metric", "imperial", "standard"],
    default="metric",
)
LATITUDE = number("Latitude in decimal degrees.", minimum=-90, maximum=90)
LONGITUDE = number("Longitude in decimal degrees.", minimum=-180, maximum=180)

tool(
    "weather_get_current",
    "Gets the current weather at a place: temperature, feels-like, humidity, wind, pressure, cloud cover and conditions.",
    required=["location"],
    location=LOCATION,
    units=UNITS,
    lang=string("Language of the condition descriptions, e.g. en, de, ja.", default="en"),
)
tool(
    "weather_get_forecast",
    "Gets the daily weather forecast for up to 16 days: highs and lows, precipitation chance and amount, wind and conditions.",
    required=["location"],
    location=LOCATION,
    days=integer("Number of days to forecast.", minimum=1, maximum=16, default=7),
    units=UNITS,
)
tool(
    "weather_get_hourly_forecast",
    "Gets an hour-by-hour forecast for the next 48 hours at a coordinate.",
    required=["latitude", "longitude"],
    latitude=LATITUDE,
    longitude=LONGITUDE,
    hours=integer("Number of hours ahead.", minimum=1, maximum=48, default=24),
    units=UNITS,
)
tool(
    "weather_get_alerts",
    "Lists active severe-weather warnings and watches, such as storms, floods or heat, issued for a place.",
    required=["latitude", "longitude"],
    latitude=LATITUDE,
    longitude=LONGITUDE,
    min_severity=string(
        "Only alerts at least this severe.",
        enum=["minor", "moderate", "severe", "extreme"],
        default="minor",
    ),
)
tool(
    "weather_get_air_quality",
    "Gets the air quality index and pollutant concentrations (PM2.5, PM10, O3, NO2, SO2, CO), now and forecast.",
    required=["latitude", "longitude"],
    latitude=LATITUDE,
    longitude=LONGITUDE,
    index=string("Air quality index scale.", enum=["us_aqi", "european_aqi"], default="us_aqi"),
    forecast_days=integer("Days of forecast to include.", minimum=0, maximum=5, default=1),
)
tool(
    "weather_get_historical",
    "Returns observed weather for a past date: temperatures, precipitation, wind and sunshine hours.",
    required=["location", "date"],
    location=LOCATION,
    date=string("Past date as YYYY-MM-DD, from 1940 onwards.", fmt="date"),
    units=UNITS,
)
tool(
    "weather_get_marine_forecast",
    "Gets wave height, wave period and direction, swell and sea-surface temperature for a coastal or offshore point.",
    required=["latitude", "longitude"],
    latitude=LATITUDE,
    longitude=LONGITUDE,
    days=integer("Days of forecast.", minimum=1, maximum=8, default=3),
)
tool(
    "weather_get_astronomy",
    "Gets sunrise, sunset, day length, moonrise, moonset and moon phase for a place and date.",
    required=["location"],
    location=LOCATION,
    date=string("Date as YYYY-MM-DD; defaults to today.", fmt="date"),
)

# --- Notion (kebab-case names, as the Notion MCP server spells them) -------------------

PAGE_ID = string(
    "ID of the Notion page, with or without dashes, e.g. 59833787-2cf9-4fdf-8782-e53db20768a5."
)

tool(
    "notion-search",
    "Searches the pages and databases shared with the integration by title.",
    query=string(
        "Text to match against titles; empty returns everything shared with the integration."
    ),
    object_type=string("Only return pages or only databases.", enum=["page", "database"]),
    sort_direction=string(
        "Order by last edited time.", enum=["ascending", "descending"], default="descending"
    ),
    page_size=integer("Results per page.", minimum=1, maximum=100, default=20),
    start_cursor=string("Cursor from the previous response."),
)
tool(
    "notion-get-page",
    "Retrieves a Notion page's properties and, optionally, its content as Markdown.",
    required=["page_id"],
    page_id=PAGE_ID,
    include_content=boolean("Also return the page body converted to Markdown.", default=True),
)
tool(
    "notion-create-page",
    "Creates a page under a parent page or as a row in a database. Content is given as Markdown and converted to blocks.",
    required=["parent_id", "title"],
    parent_id=string("ID of the parent page or database."),
    parent_type=string(
        "Whether parent_id is a page or a database.", enum=["page", "database"], default="page"
    ),
    title=string("Title of the page (the database's title property for rows)."),
    content=string("Body of the page in Markdown."),
    properties=obj(
        'Database property values keyed by property name, e.g. {"Status": "In progress", "Due": "2024-06-30"}.',
        additional=True,
    ),
    icon=string("An emoji to use as the page icon, e.g. 📝."),
)
tool(
    "notion-update-page",
    "Updates a page's properties or icon, or moves it to the trash.",
    required=["page_id"],
    page_id=PAGE_ID,
    properties=obj("Property values to set, keyed by property name.", additional=True),
    icon=string("New emoji icon."),
    in_trash=boolean("Move the page to the trash (true) or restore it (false)."),
)
tool(
    "notion-append-blocks",
    "Appends content to the end of a page or block, or after a given block. Content is written as Markdown.",
    required=["block_id", "content"],
    block_id=string("ID of the page or block to append to."),
    content=string(
        "Markdown to append: headings, lists, to-dos (- [ ]), code blocks, quotes and tables."
    ),
    after=string("ID of an existing child block to insert after."),
)
tool(
    "notion-get-block-children",
    "Lists the child blocks of a page or block: paragraphs, headings, lists, to-dos, toggles and embedded databases.",
    required=["block_id"],
    block_id=string("ID of the page or block."),
    page_size=integer("Blocks per page.", minimum=1, maximum=100, default=100),
    start_cursor=string("Cursor from the previous response."),
)
tool(
    "notion-delete-block",
    "Moves a block, and everything nested in it, to the trash.",
    required=["block_id"],
    block_id=string("ID of the block."),
)
tool(
    "notion-query-database",
    "Returns the rows (pages) of a Notion database that match a filter, in the given sort order.",
    required=["database_id"],
    database_id=string("ID of the database."),
    filter=obj(
        'Notion filter object, e.g. {"property": "Status", "status": {"equals": "Done"}}; compound filters use and/or.',
        additional=True,
    ),
    sorts=array(
        obj(
            "A sort key.",
            property=string("Property name to sort by."),
            timestamp=string(
                "Sort by a timestamp instead of a property.",
                enum=["created_time", "last_edited_time"],
            ),
            direction=string(
                "Sort direction.", enum=["ascending", "descending"], default="ascending"
            ),
        ),
        "Sort keys, most significant first.",
    ),
    page_size=integer("Rows per page.", minimum=1, maximum=100, default=50),
    start_cursor=string("Cursor from the previous response."),
)
tool(
    "notion-create-database",
    "Creates a database as a child of a page, with a schema of typed properties.",
    required=["parent_page_id", "title", "properties"],
    parent_page_id=PAGE_ID,
    title=string("Title of the database."),
    properties=obj(
        'Property schema keyed by name, e.g. {"Name": {"title": {}}, "Status": {"select": {"options": [{"name": "Open"}]}}, "Due": {"date": {}}}.',
        additional={"type": "object", "additionalProperties": True},
    ),
    is_inline=boolean("Show the database inline in the parent page.", default=False),
)
tool(
    "notion-add-comment",
    "Adds a comment to a page or replies in an existing discussion thread.",
    required=["text"],
    page_id=string("Page to comment on, for a new discussion."),
    discussion_id=string("Discussion to reply in, instead of page_id."),
    text=string("Comment text."),
)
tool(
    "notion-list-users",
    "Lists the people and bots in the Notion workspace with their IDs, names and emails.",
    page_size=integer("Users per page.", minimum=1, maximum=100, default=100),
    start_cursor=string("Cursor from the previous response."),
)

# --- Confluence ------------------------------------------------------------------------

CONFLUENCE_PAGE = string("ID of the Confluence page, e.g. 229483.")

tool(
    "confluence_search",
    "Searches Confluence pages, blog posts, attachments and comments with CQL.",
    required=["cql"],
    cql=string(
        "CQL query, e.g. 'type=page AND space=ENG AND text ~ \"release checklist\" ORDER BY lastmodified DESC'."
    ),
    limit=integer("Maximum number of results.", minimum=1, maximum=250, default=25),
    start=integer("Index of the first result, for paging.", minimum=0, default=0),
    include_excerpt=boolean("Include a highlighted text excerpt for each result.", default=True),
)
tool(
    "confluence_get_page",
    "Gets a Confluence page's title, space, version, ancestors and body.",
    required=["page_id"],
    page_id=CONFLUENCE_PAGE,
    body_format=string(
        "Format of the returned body.",
        enum=["storage", "atlas_doc_format", "view", "markdown"],
        default="markdown",
    ),
)
tool(
    "confluence_create_page",
    "Creates a page in a Confluence space, optionally under a parent page, as published or as a draft.",
    required=["space_key", "title", "body"],
    space_key=string("Key of the space, e.g. ENG."),
    title=string("Title; must be unique within the space."),
    body=string("Page content in the format given by representation."),
    representation=string(
        "Format of body.", enum=["storage", "wiki", "markdown"], default="markdown"
    ),
    parent_id=string("ID of the parent page."),
    status=string("Publish now or save as a draft.", enum=["current", "draft"], default="current"),
)
tool(
    "confluence_update_page",
    "Replaces a page's title or body with a new version. The version number must be one more than the current one.",
    required=["page_id", "title", "body", "version_number"],
    page_id=CONFLUENCE_PAGE,
    title=string("Title of the page (unchanged or new)."),
    body=string("New page content."),
    representation=string(
        "Format of body.", enum=["storage", "wiki", "markdown"], default="markdown"
    ),
    version_number=integer("New version number: the current version plus one.", minimum=2),
    version_message=string("Change summary shown in the page history."),
    minor_edit=boolean("Do not notify watchers.", default=False),
)
tool(
    "confluence_delete_page",
    "Moves a page to the space's trash, or purges it if it is already trashed.",
    required=["page_id"],
    page_id=CONFLUENCE_PAGE,
    purge=boolean("Permanently delete a page that is already in the trash.", default=False),
)
tool(
    "confluence_get_page_children",
    "Lists the direct child pages of a Confluence page.",
    required=["page_id"],
    page_id=CONFLUENCE_PAGE,
    limit=integer("Maximum number of children.", minimum=1, maximum=250, default=25),
)
tool(
    "confluence_add_comment",
    "Adds a footer comment to a page, or replies to an existing comment.",
    required=["page_id", "body"],
    page_id=CONFLUENCE_PAGE,
    body=string("Comment text in storage format or plain text."),
    parent_comment_id=string("ID of the comment to reply to."),
)
tool(
    "confluence_add_labels",
    "Adds labels to a Confluence page so it can be found by label in search and macros.",
    required=["page_id", "labels"],
    page_id=CONFLUENCE_PAGE,
    labels=strings(
        'Labels to add, lowercase without spaces, e.g. ["runbook", "oncall"].', min_items=1
    ),
)
tool(
    "confluence_list_spaces",
    "Lists the Confluence spaces the user can see, with their keys, names and types.",
    type=string("Only spaces of this type.", enum=["global", "personal"]),
    status=string(
        "Only current or only archived spaces.", enum=["current", "archived"], default="current"
    ),
    limit=integer("Maximum number of spaces.", minimum=1, maximum=250, default=25),
)
tool(
    "confluence_attach_file",
    "Uploads a file as an attachment to a Confluence page, or a new version of an attachment with the same name.",
    required=["page_id", "file_path"],
    page_id=CONFLUENCE_PAGE,
    file_path=string("Path of the local file."),
    comment=string("Comment describing the attachment."),
    minor_edit=boolean("Do not notify watchers.", default=True),
)

# --- Zoom ------------------------------------------------------------------------------

MEETING_ID = string("Zoom meeting ID, e.g. 85746065432.")

tool(
    "zoom_create_meeting",
    "Schedules a Zoom meeting for a user and returns its join URL, meeting ID and passcode.",
    required=["topic"],
    user_id=string("User ID or email of the host, or 'me'.", default="me"),
    topic=string("Topic of the meeting."),
    type=integer(
        "1 instant, 2 scheduled, 3 recurring with no fixed time, 8 recurring with a fixed time.",
        enum=[1, 2, 3, 8],
        default=2,
    ),
    start_time=string(
        "Start time, e.g. 2024-06-05T16:00:00; interpreted in timezone.", fmt="date-time"
    ),
    duration=integer("Length in minutes.", minimum=1, default=60),
    timezone=string("IANA time zone, e.g. America/Los_Angeles."),
    agenda=string("Description of the meeting.", max_length=2000),
    password=string("Passcode, up to 10 characters; generated if omitted.", max_length=10),
    waiting_room=boolean("Hold participants in a waiting room until admitted.", default=True),
    join_before_host=boolean("Let participants join before the host.", default=False),
    auto_recording=string("Record automatically.", enum=["local", "cloud", "none"], default="none"),
    alternative_hosts=strings("Emails of alternative hosts.", fmt="email"),
)
tool(
    "zoom_list_meetings",
    "Lists a user's scheduled, live, upcoming or previous meetings.",
    user_id=string("User ID or email, or 'me'.", default="me"),
    type=string(
        "Which meetings to list.",
        enum=["scheduled", "live", "upcoming", "upcoming_meetings", "previous_meetings"],
        default="upcoming",
    ),
    page_size=integer("Meetings per page.", minimum=1, maximum=300, default=30),
)
tool(
    "zoom_get_meeting",
    "Gets a meeting's details: topic, time, duration, join URL, settings and recurrence.",
    required=["meeting_id"],
    meeting_id=MEETING_ID,
    occurrence_id=string("ID of one occurrence of a recurring meeting."),
)
tool(
    "zoom_update_meeting",
    "Changes a scheduled meeting's topic, time, duration, agenda or settings.",
    required=["meeting_id"],
    meeting_id=MEETING_ID,
    topic=string("New topic."),
    start_time=string("New start time.", fmt="date-time"),
    duration=integer("New length in minutes.", minimum=1),
    timezone=string("IANA time zone of start_time."),
    agenda=string("New description."),
)
tool(
    "zoom_delete_meeting",
    "Deletes a meeting, or one occurrence of a recurring meeting, optionally emailing registrants.",
    required=["meeting_id"],
    meeting_id=MEETING_ID,
    occurrence_id=string("Delete only this occurrence."),
    cancel_meeting_reminder=boolean(
        "Email registrants and alternative hosts about the cancellation.", default=False
    ),
)
tool(
    "zoom_list_recordings",
    "Lists a user's cloud recordings in a date range, with download links for video, audio and transcript files.",
    user_id=string("User ID or email, or 'me'.", default="me"),
    from_date=string("Start date, YYYY-MM-DD; the range can span at most one month.", fmt="date"),
    to_date=string("End date, YYYY-MM-DD.", fmt="date"),
    page_size=integer("Recordings per page.", minimum=1, maximum=300, default=30),
)
tool(
    "zoom_get_meeting_transcript",
    "Downloads the audio transcript of a recorded meeting as WebVTT or plain text.",
    required=["meeting_id"],
    meeting_id=string("Meeting ID or UUID of the recorded meeting instance."),
    format=string("Transcript format.", enum=["vtt", "text"], default="text"),
)
tool(
    "zoom_list_past_participants",
    "Lists who attended an ended meeting, with join and leave times.",
    required=["meeting_uuid"],
    meeting_uuid=string("UUID of the ended meeting instance."),
    page_size=integer("Participants per page.", minimum=1, maximum=300, default=30),
)
tool(
    "zoom_add_registrant",
    "Registers a person for a meeting that requires registration; they receive a unique join link.",
    required=["meeting_id", "email", "first_name"],
    meeting_id=MEETING_ID,
    email=string("Registrant's email.", fmt="email"),
    first_name=string("Registrant's first name."),
    last_name=string("Registrant's last name."),
    auto_approve=boolean("Approve the registration immediately.", default=True),
)
tool(
    "zoom_create_webinar",
    "Schedules a Zoom webinar with panelists and optional registration.",
    required=["topic", "start_time"],
    user_id=string("User ID or email of the host.", default="me"),
    topic=string("Topic of the webinar."),
    start_time=string("Start time.", fmt="date-time"),
    duration=integer("Length in minutes.", minimum=1, default=60),
    timezone=string("IANA time zone."),
    agenda=string("Description."),
    panelists=strings("Emails of panelists to invite.", fmt="email"),
    registration_required=boolean("Require attendees to register.", default=True),
)
tool(
    "zoom_send_chat_message",
    "Sends a Zoom Team Chat message to a contact or a channel.",
    required=["message"],
    message=string("Message text, up to 4096 characters.", max_length=4096),
    to_contact=string("Email of the contact to message."),
    to_channel=string("ID of the channel to post in."),
)

# --- Salesforce ------------------------------------------------------------------------

SOBJECT = string(
    "API name of the object type, e.g. Account, Contact, Opportunity, Case or a custom object like Invoice__c."
)
RECORD_ID = string("15- or 18-character Salesforce record ID, e.g. 0015g00000Xyz12AAB.")

tool(
    "salesforce_soql_query",
    "Runs a SOQL query against Salesforce and returns the matching records.",
    required=["query"],
    query=string(
        "SOQL, e.g. \"SELECT Id, Name, Amount FROM Opportunity WHERE StageName = 'Negotiation' AND CloseDate = THIS_QUARTER\"."
    ),
    include_deleted=boolean("Include deleted and archived records (queryAll).", default=False),
)
tool(
    "salesforce_sosl_search",
    "Runs a SOSL full-text search across several Salesforce objects at once.",
    required=["search"],
    search=string(
        "SOSL, e.g. 'FIND {Acme*} IN NAME FIELDS RETURNING Account(Name), Contact(Name, Email)'."
    ),
)
tool(
    "salesforce_get_record",
    "Gets one Salesforce record by object type and ID.",
    required=["sobject", "record_id"],
    sobject=SOBJECT,
    record_id=RECORD_ID,
    fields=strings("Field API names to return; defaults to all fields."),
)
tool(
    "salesforce_create_record",
    "Creates a record of any Salesforce object type from field values.",
    required=["sobject", "fields"],
    sobject=SOBJECT,
    fields=obj(
        'Field values keyed by API name, e.g. {"Name": "Acme Corp", "Industry": "Manufacturing"}.',
        additional=True,
    ),
)
tool(
    "salesforce_update_record",
    "Updates fields of an existing Salesforce record.",
    required=["sobject", "record_id", "fields"],
    sobject=SOBJECT,
    record_id=RECORD_ID,
    fields=obj("Field values to change, keyed by API name.", additional=True),
)
tool(
    "salesforce_delete_record",
    "Deletes a Salesforce record; it goes to the Recycle Bin for 15 days.",
    required=["sobject", "record_id"],
    sobject=SOBJECT,
    record_id=RECORD_ID,
)
tool(
    "salesforce_upsert_record",
    "Creates or updates a record matched on an external ID field, e.g. to sync from another system.",
    required=["sobject", "external_id_field", "external_id", "fields"],
    sobject=SOBJECT,
    external_id_field=string("API name of the external ID field, e.g. ERP_Id__c."),
    external_id=string("Value of the external ID."),
    fields=obj("Field values keyed by API name.", additional=True),
)
tool(
    "salesforce_describe_object",
    "Describes a Salesforce object: its fields with types and picklist values, record types and relationships.",
    required=["sobject"],
    sobject=SOBJECT,
)
tool(
    "salesforce_create_lead",
    "Creates a sales lead in Salesforce.",
    required=["last_name", "company"],
    first_name=string("First name."),
    last_name=string("Last name."),
    company=string("Company the lead works for."),
    email=string("Email address.", fmt="email"),
    phone=string("Phone number."),
    title=string("Job title."),
    lead_source=string(
        "Where the lead came from.",
        enum=["Web", "Phone Inquiry", "Partner Referral", "Purchased List", "Trade Show", "Other"],
    ),
    status=string("Lead status.", default="Open - Not Contacted"),
)
tool(
    "salesforce_convert_lead",
    "Converts a qualified lead into an account, a contact and optionally an opportunity.",
    required=["lead_id", "converted_status"],
    lead_id=RECORD_ID,
    converted_status=string("A converted lead status, e.g. Closed - Converted."),
    account_id=string("Merge into this existing account instead of creating one."),
    create_opportunity=boolean("Also create an opportunity.", default=True),
    opportunity_name=string("Name of the new opportunity."),
)
tool(
    "salesforce_update_opportunity_stage",
    "Moves an opportunity to another sales stage and updates its amount, close date and next step.",
    required=["opportunity_id", "stage_name"],
    opportunity_id=RECORD_ID,
    stage_name=string(
        "New stage.",
        enum=[
            "Prospecting",
            "Qualification",
            "Needs Analysis",
            "Value Proposition",
            "Proposal/Price Quote",
            "Negotiation/Review",
            "Closed Won",
            "Closed Lost",
        ],
    ),
    amount=number("Expected deal amount.", minimum=0),
    close_date=string("Expected close date.", fmt="date"),
    next_step=string("Next step in the deal."),
)
tool(
    "salesforce_log_activity",
    "Logs a call, email or meeting as a completed task on a record's activity timeline.",
    required=["subject"],
    subject=string("Subject of the activity, e.g. 'Call with CFO about renewal'."),
    type=string("Kind of activity.", enum=["Call", "Email", "Meeting", "Other"], default="Call"),
    who_id=string("ID of the related contact or lead."),
    what_id=string("ID of the related account, opportunity or case."),
    description=string("Notes."),
    activity_date=string("Date of the activity.", fmt="date"),
)

# --- HubSpot (camelCase names) ---------------------------------------------------------

tool(
    "hubspotCreateContact",
    "Creates a contact in HubSpot CRM. Email is the unique key; creating a duplicate email fails.",
    required=["email"],
    email=string("Email address.", fmt="email"),
    firstname=string("First name."),
    lastname=string("Last name."),
    phone=string("Phone number."),
    company=string("Company name."),
    jobtitle=string("Job title."),
    lifecyclestage=string(
        "Lifecycle stage.",
        enum=[
            "subscriber",
            "lead",
            "marketingqualifiedlead",
            "salesqualifiedlead",
            "opportunity",
            "customer",
            "evangelist",
            "other",
        ],
    ),
    hubspot_owner_id=string("ID of the owning sales rep."),
)
tool(
    "hubspotUpdateContact",
    "Updates properties of a HubSpot contact.",
    required=["contactId", "properties"],
    contactId=string("ID of the contact, or its email when idProperty is email."),
    idProperty=string(
        "Property that contactId refers to.", enum=["hs_object_id", "email"], default="hs_object_id"
    ),
    properties=obj(
        'Property values keyed by internal name, e.g. {"lifecyclestage": "customer"}.',
        additional={"type": "string"},
    ),
)
tool(
    "hubspotSearchContacts",
    "Searches HubSpot contacts by text or by property filters, e.g. all leads created this month in one city.",
    query=string(
        "Text matched against default searchable properties such as name, email and phone."
    ),
    filters=array(
        obj(
            "A property filter; all filters must match.",
            required=["propertyName", "operator"],
            propertyName=string("Internal property name, e.g. city or createdate."),
            operator=string(
                "Comparison.",
                enum=[
                    "EQ",
                    "NEQ",
                    "LT",
                    "LTE",
                    "GT",
                    "GTE",
                    "BETWEEN",
                    "IN",
                    "NOT_IN",
                    "HAS_PROPERTY",
                    "NOT_HAS_PROPERTY",
                    "CONTAINS_TOKEN",
                ],
            ),
            value=string("Value to compare with."),
        ),
        "Property filters.",
        max_items=6,
    ),
    properties=strings("Properties to return for each contact."),
    limit=integer("Maximum number of contacts.", minimum=1, maximum=200, default=10),
    after=string("Paging cursor from the previous response."),
)
tool(
    "hubspotCreateCompany",
    "Creates a company record in HubSpot CRM.",
    required=["name"],
    name=string("Company name."),
    domain=string("Website domain, e.g. acme.com; used to associate contacts automatically."),
    industry=string("Industry, e.g. COMPUTER_SOFTWARE."),
    numberofemployees=integer("Number of employees.", minimum=0),
    city=string("City."),
    country=string("Country."),
)
tool(
    "hubspotCreateDeal",
    "Creates a deal in a HubSpot sales pipeline and associates it with contacts and a company.",
    required=["dealname", "dealstage"],
    dealname=string("Name of the deal."),
    pipeline=string("ID of the pipeline.", default="default"),
    dealstage=string("ID of the stage, e.g. appointmentscheduled, qualifiedtobuy, closedwon."),
    amount=number("Deal value.", minimum=0),
    closedate=string("Expected close date.", fmt="date-time"),
    contactIds=strings("IDs of contacts to associate."),
    companyId=string("ID of the company to associate."),
)
tool(
    "hubspotUpdateDealStage",
    "Moves a HubSpot deal to another stage of its pipeline.",
    required=["dealId", "dealstage"],
    dealId=string("ID of the deal."),
    dealstage=string("ID of the new stage."),
)
tool(
    "hubspotCreateTicket",
    "Opens a support ticket in a HubSpot help desk pipeline.",
    required=["subject", "hs_pipeline_stage"],
    subject=string("Ticket subject."),
    content=string("Description of the problem."),
    hs_pipeline=string("ID of the ticket pipeline.", default="0"),
    hs_pipeline_stage=string("ID of the ticket status, e.g. 1 for New."),
    hs_ticket_priority=string("Priority.", enum=["LOW", "MEDIUM", "HIGH", "URGENT"]),
    contactId=string("ID of the contact who raised the ticket."),
)
tool(
    "hubspotAssociateObjects",
    "Associates two HubSpot CRM records, e.g. a contact with a company or a deal with a ticket.",
    required=["fromObjectType", "fromObjectId", "toObjectType", "toObjectId"],
    fromObjectType=string(
        "Type of the first record.", enum=["contacts", "companies", "deals", "tickets"]
    ),
    fromObjectId=string("ID of the first record."),
    toObjectType=string(
        "Type of the second record.", enum=["contacts", "companies", "deals", "tickets"]
    ),
    toObjectId=string("ID of the second record."),
)
tool(
    "hubspotCreateNote",
    "Adds a note to the timeline of contacts, companies or deals.",
    required=["body"],
    body=string("Note text; may contain simple HTML."),
    timestamp=string("Time the note refers to; defaults to now.", fmt="date-time"),
    contactIds=strings("Contacts to attach the note to."),
    companyIds=strings("Companies to attach the note to."),
    dealIds=strings("Deals to attach the note to."),
)
tool(
    "hubspotListPipelines",
    "Lists the deal or ticket pipelines with their stages and stage IDs.",
    required=["objectType"],
    objectType=string("Which pipelines to list.", enum=["deals", "tickets"]),
)

# --- Twilio ----------------------------------------------------------------------------

E164 = string("Phone number in E.164 format, e.g. +14155552671.", pattern="^\\+[1-9][0-9]{1,14}$")

tool(
    "twilio_send_sms",
    "Sends an SMS or MMS from a Twilio number or messaging service. Messages longer than 160 GSM characters are split into segments.",
    required=["to", "body"],
    to=E164,
    body=string("Message text, up to 1600 characters.", max_length=1600),
    from_number=string("Twilio phone number or alphanumeric sender ID to send from."),
    messaging_service_sid=string(
        "Messaging Service SID (MG...) to send through instead of from_number."
    ),
    media_urls=strings(
        "Public URLs of images or other media to send as MMS, up to 10.", fmt="uri", max_items=10
    ),
    status_callback=string("URL Twilio calls with delivery status updates.", fmt="uri"),
    send_at=string(
        "Schedule the message for this time (15 minutes to 35 days ahead); needs messaging_service_sid.",
        fmt="date-time",
    ),
)
tool(
    "twilio_list_messages",
    "Lists sent and received messages, filtered by number and date.",
    to=string("Only messages to this number."),
    from_number=string("Only messages from this number."),
    date_sent_after=string("Only messages sent on or after this date.", fmt="date"),
    date_sent_before=string("Only messages sent before this date.", fmt="date"),
    page_size=integer("Messages per page.", minimum=1, maximum=1000, default=50),
)
tool(
    "twilio_get_message",
    "Gets a message's status (queued, sent, delivered, undelivered, failed), error code, segments and price.",
    required=["message_sid"],
    message_sid=string("SID of the message, e.g. SM1234567890abcdef1234567890abcdef."),
)
tool(
    "twilio_cancel_scheduled_message",
    "Cancels a scheduled message before it is sent.",
    required=["message_sid"],
    message_sid=string("SID of the scheduled message."),
)
tool(
    "twilio_lookup_phone_number",
    "Validates a phone number and returns its E.164 format and country, plus optional line type, carrier and caller name.",
    required=["phone_number"],
    phone_number=string("Phone number in E.164 or national format."),
    country_code=string("ISO country code for national-format numbers, e.g. GB."),
    fields=strings(
        "Extra data packages to fetch.",
        enum=[
            "line_type_intelligence",
            "caller_name",
            "sim_swap",
            "call_forwarding",
            "identity_match",
        ],
    ),
)
tool(
    "twilio_make_call",
    "Places an outbound phone call that plays TwiML instructions, e.g. text-to-speech or a recording.",
    required=["to", "from_number"],
    to=E164,
    from_number=string("Twilio number to call from."),
    twiml=string(
        "TwiML to run when the call connects, e.g. <Response><Say>Your order has shipped.</Say></Response>."
    ),
    url=string("URL returning TwiML, used instead of twiml.", fmt="uri"),
    record=boolean("Record the call.", default=False),
    timeout=integer(
        "Seconds to let the phone ring before giving up.", minimum=5, maximum=600, default=60
    ),
    machine_detection=string("Detect answering machines.", enum=["Enable", "DetectMessageEnd"]),
)
tool(
    "twilio_send_whatsapp_message",
    "Sends a WhatsApp message. Outside the 24-hour customer service window only approved templates (content_sid) can be sent.",
    required=["to", "from_number"],
    to=string("Recipient as whatsapp:+E.164, e.g. whatsapp:+447700900123."),
    from_number=string("WhatsApp-enabled sender, e.g. whatsapp:+14155238886."),
    body=string("Free-form text, allowed inside the service window."),
    content_sid=string("SID of an approved content template (HX...)."),
    content_variables=obj(
        'Template variables, e.g. {"1": "12/1", "2": "3pm"}.', additional={"type": "string"}
    ),
)
tool(
    "twilio_start_verification",
    "Sends a one-time verification code by SMS, voice call, email or WhatsApp using Twilio Verify.",
    required=["service_sid", "to"],
    service_sid=string("SID of the Verify service (VA...)."),
    to=string("Phone number in E.164, or an email address for the email channel."),
    channel=string(
        "How to deliver the code.", enum=["sms", "call", "email", "whatsapp"], default="sms"
    ),
    locale=string("Language of the message, e.g. en, es, pt-BR."),
)
tool(
    "twilio_check_verification",
    "Checks a verification code the user entered; the status is approved when it matches.",
    required=["service_sid", "to", "code"],
    service_sid=string("SID of the Verify service."),
    to=string("Phone number or email the code was sent to."),
    code=string("Code the user entered, usually 4-10 digits."),
)

# --- Amazon S3 (dotted names, as in boto3) ---------------------------------------------

BUCKET = string("Name of the S3 bucket, e.g. acme-prod-logs.")
KEY = string("Object key, the object's full path in the bucket, e.g. reports/2024/06/summary.csv.")

tool(
    "s3.list_buckets",
    "Lists the S3 buckets in the AWS account with their creation dates and regions.",
    prefix=string("Only buckets whose names start with this."),
    region=string("Only buckets in this region, e.g. eu-west-1."),
)
tool(
    "s3.list_objects",
    "Lists objects in a bucket, optionally under a prefix. With a delimiter, keys are grouped into common prefixes like folders.",
    required=["bucket"],
    bucket=BUCKET,
    prefix=string("Only keys that start with this, e.g. logs/2024-06-."),
    delimiter=string("Group keys by this character, usually '/'."),
    max_keys=integer("Maximum number of keys to return.", minimum=1, maximum=1000, default=1000),
    continuation_token=string("Token from the previous response, to get the next page."),
    start_after=string("Start listing after this key."),
)
tool(
    "s3.get_object",
    "Downloads an object from S3 to a local file, or returns it as text when it is small and textual.",
    required=["bucket", "key"],
    bucket=BUCKET,
    key=KEY,
    version_id=string("Version of the object to get, for versioned buckets."),
    range=string("Byte range to fetch, e.g. bytes=0-1023."),
    download_to=string("Local path to save the object to; omit to return the content."),
)
tool(
    "s3.put_object",
    "Uploads a local file or text to S3 under a key, with content type, storage class, encryption and metadata.",
    required=["bucket", "key"],
    bucket=BUCKET,
    key=KEY,
    file_path=string("Local file to upload."),
    body=string("Text content to upload instead of a file."),
    content_type=string("MIME type, e.g. application/json; guessed from the key when omitted."),
    storage_class=string(
        "Storage class.",
        enum=[
            "STANDARD",
            "STANDARD_IA",
            "ONEZONE_IA",
            "INTELLIGENT_TIERING",
            "GLACIER_IR",
            "GLACIER",
            "DEEP_ARCHIVE",
        ],
        default="STANDARD",
    ),
    server_side_encryption=string("Encryption at rest.", enum=["AES256", "aws:kms"]),
    metadata=obj("User metadata stored as x-amz-meta-* headers.", additional={"type": "string"}),
)
tool(
    "s3.copy_object",
    "Copies an object within or between buckets, optionally replacing its metadata or changing its storage class.",
    required=["source_bucket", "source_key", "bucket", "key"],
    source_bucket=string("Bucket of the object to copy."),
    source_key=string("Key of the object to copy."),
    bucket=string("Destination bucket."),
    key=string("Destination key."),
    metadata_directive=string(
        "Keep the source's metadata or replace it.", enum=["COPY", "REPLACE"], default="COPY"
    ),
    storage_class=string(
        "Storage class of the copy.",
        enum=[
            "STANDARD",
            "STANDARD_IA",
            "ONEZONE_IA",
            "INTELLIGENT_TIERING",
            "GLACIER_IR",
            "GLACIER",
            "DEEP_ARCHIVE",
        ],
    ),
)
tool(
    "s3.delete_objects",
    "Deletes up to 1000 objects from a bucket in one request.",
    required=["bucket", "keys"],
    bucket=BUCKET,
    keys=strings("Keys of the objects to delete.", min_items=1, max_items=1000),
    quiet=boolean("Report only errors, not each deleted key.", default=False),
)
tool(
    "s3.head_object",
    "Gets an object's metadata (size, ETag, content type, last modified, storage class) without downloading it.",
    required=["bucket", "key"],
    bucket=BUCKET,
    key=KEY,
    version_id=string("Version of the object."),
)
tool(
    "s3.generate_presigned_url",
    "Creates a temporary URL that lets anyone download or upload one object without AWS credentials.",
    required=["bucket", "key"],
    bucket=BUCKET,
    key=KEY,
    operation=string(
        "What the URL allows.", enum=["get_object", "put_object"], default="get_object"
    ),
    expires_in=integer(
        "Seconds until the URL expires, at most 7 days.", minimum=1, maximum=604800, default=3600
    ),
)
tool(
    "s3.create_bucket",
    "Creates an S3 bucket in a region. Bucket names are globally unique, 3-63 characters, lowercase.",
    required=["bucket"],
    bucket=string("Name of the new bucket.", pattern="^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"),
    region=string("Region to create it in, e.g. us-east-2.", default="us-east-1"),
    block_public_access=boolean("Turn on all four Block Public Access settings.", default=True),
    versioning=boolean("Enable versioning.", default=False),
)
tool(
    "s3.put_bucket_lifecycle",
    "Sets a bucket's lifecycle rules that move objects to cheaper storage classes or delete them after a number of days.",
    required=["bucket", "rules"],
    bucket=BUCKET,
    rules=array(
        obj(
            "A lifecycle rule.",
            required=["id"],
            id=string("Name of the rule."),
            prefix=string("Apply only to keys starting with this."),
            transition_days=integer("Days after creation to change storage class.", minimum=0),
            transition_storage_class=string(
                "Storage class to move to.",
                enum=[
                    "STANDARD_IA",
                    "ONEZONE_IA",
                    "INTELLIGENT_TIERING",
                    "GLACIER_IR",
                    "GLACIER",
                    "DEEP_ARCHIVE",
                ],
            ),
            expiration_days=integer("Days after creation to delete objects.", minimum=1),
            noncurrent_expiration_days=integer(
                "Days after becoming non-current to delete old versions.", minimum=1
            ),
        ),
        "The rules; they replace any existing configuration.",
        min_items=1,
        max_items=1000,
    ),
)
tool(
    "s3.restore_object",
    "Restores a temporary copy of an object archived in S3 Glacier or Deep Archive so it can be downloaded.",
    required=["bucket", "key", "days"],
    bucket=BUCKET,
    key=KEY,
    days=integer("Days to keep the restored copy.", minimum=1),
    tier=string(
        "Retrieval speed: Expedited (minutes), Standard (hours) or Bulk (cheapest).",
        enum=["Expedited", "Standard", "Bulk"],
        default="Standard",
    ),
)

# --- PostgreSQL ------------------------------------------------------------------------

SCHEMA_NAME = string("Schema name.", default="public")

tool(
    "postgres_query",
    "Runs a read-only SQL query in a PostgreSQL database and returns the rows as JSON. Writes are rejected.",
    required=["sql"],
    sql=string("A SELECT or WITH query; use $1, $2 placeholders for parameters."),
    params=array(
        {"type": "string"},
        "Values for the placeholders, in order, as text; PostgreSQL casts them to the column types.",
    ),
    max_rows=integer("Stop after this many rows.", minimum=1, maximum=100000, default=1000),
    timeout_ms=integer(
        "Cancel the query after this many milliseconds.", minimum=100, default=30000
    ),
)
tool(
    "postgres_execute",
    "Runs a data-changing SQL statement (INSERT, UPDATE, DELETE, DDL) in a transaction and returns the affected row count.",
    required=["sql"],
    sql=string("Statement to run; use $1, $2 placeholders for parameters."),
    params=array(
        {"type": "string"},
        "Values for the placeholders, in order, as text; PostgreSQL casts them to the column types.",
    ),
    dry_run=boolean(
        "Run inside a transaction that is rolled back, to see the effect safely.", default=False
    ),
)
tool(
    "postgres_list_schemas",
    "Lists the schemas in the database with their owners.",
    include_system=boolean(
        "Include pg_catalog, information_schema and pg_toast schemas.", default=False
    ),
)
tool(
    "postgres_list_tables",
    "Lists tables, and optionally views, in a schema with estimated row counts and sizes.",
    schema=SCHEMA_NAME,
    include_views=boolean("Include views and materialized views.", default=False),
)
tool(
    "postgres_describe_table",
    "Describes a table: columns with types, defaults and nullability, primary and foreign keys, indexes and check constraints.",
    required=["table"],
    table=string("Table name."),
    schema=SCHEMA_NAME,
)
tool(
    "postgres_explain_query",
    "Shows the execution plan PostgreSQL chooses for a query, optionally running it to get real timings.",
    required=["sql"],
    sql=string("Query to explain."),
    analyze=boolean(
        "Run the query and report actual times and row counts; use with care on writes.",
        default=False,
    ),
    buffers=boolean("Report buffer usage (needs analyze).", default=False),
    format=string(
        "Output format of the plan.", enum=["text", "json", "yaml", "xml"], default="text"
    ),
)
tool(
    "postgres_list_indexes",
    "Lists indexes of a table with their definitions, sizes and how often they have been scanned.",
    required=["table"],
    table=string("Table name."),
    schema=SCHEMA_NAME,
)
tool(
    "postgres_table_stats",
    "Reports table health: size on disk, live and dead tuples, sequential vs index scans, and last vacuum and analyze times.",
    schema=SCHEMA_NAME,
    order_by=string(
        "Sort tables by.",
        enum=["total_size", "dead_tuples", "seq_scans", "name"],
        default="total_size",
    ),
    limit=integer("Number of tables to report.", minimum=1, maximum=1000, default=20),
)
tool(
    "postgres_list_active_queries",
    "Lists the queries currently running on the server with their process IDs, users, durations and wait events.",
    min_duration_seconds=number("Only queries running at least this long.", minimum=0, default=0),
    state=string(
        "Only backends in this state.",
        enum=["active", "idle", "idle in transaction", "idle in transaction (aborted)"],
        default="active",
    ),
)
tool(
    "postgres_cancel_query",
    "Cancels the running query of a backend process, or terminates the whole connection.",
    required=["pid"],
    pid=integer("Process ID of the backend, from postgres_list_active_queries.", minimum=1),
    terminate=boolean(
        "Terminate the connection instead of cancelling only the query.", default=False
    ),
)
tool(
    "postgres_export_csv",
    "Exports the result of a query to a CSV file on the local machine.",
    required=["sql", "file_path"],
    sql=string("SELECT query whose rows are exported."),
    file_path=string("Local path of the CSV file to write."),
    header=boolean("Write a header row with column names.", default=True),
    delimiter=string("Field delimiter.", default=",", max_length=1),
)

# --- Web search and fetch --------------------------------------------------------------

tool(
    "web_search",
    "Searches the web and returns result titles, URLs and snippets. Use for current events, facts and finding documentation.",
    required=["query"],
    query=string("Search query; supports operators like site:, filetype:, quotes and -exclusion."),
    count=integer("Number of results.", minimum=1, maximum=20, default=10),
    offset=integer("Number of results to skip, for paging.", minimum=0, maximum=9, default=0),
    freshness=string(
        "Only pages discovered within this period.", enum=["day", "week", "month", "year"]
    ),
    country=string("Two-letter country code to localise results, e.g. DE."),
    safesearch=string(
        "Adult content filtering.", enum=["off", "moderate", "strict"], default="moderate"
    ),
)
tool(
    "web_search_news",
    "Searches recent news articles and returns headlines, sources, publication times and URLs.",
    required=["query"],
    query=string("News search query."),
    count=integer("Number of articles.", minimum=1, maximum=50, default=10),
    freshness=string(
        "Only articles published within this period.", enum=["day", "week", "month"], default="week"
    ),
    language=string("Two-letter language code of the articles, e.g. en, fr."),
)
tool(
    "web_search_images",
    "Searches for images on the web and returns image URLs, thumbnails, sizes and source pages.",
    required=["query"],
    query=string("Image search query."),
    count=integer("Number of images.", minimum=1, maximum=100, default=20),
    size=string("Image size.", enum=["small", "medium", "large", "wallpaper"]),
    license=string(
        "Usage rights.",
        enum=["any", "public", "share", "share_commercially", "modify", "modify_commercially"],
        default="any",
    ),
    safesearch=string(
        "Adult content filtering.", enum=["off", "moderate", "strict"], default="strict"
    ),
)
tool(
    "web_fetch_page",
    "Fetches a web page and returns its main content as Markdown or plain text, without navigation and ads.",
    required=["url"],
    url=string("URL of the page, http or https.", fmt="uri"),
    format=string("Output format.", enum=["markdown", "text", "html"], default="markdown"),
    max_chars=integer("Truncate the content to this many characters.", minimum=100, default=20000),
    include_links=boolean("Keep hyperlinks in the output.", default=True),
)
tool(
    "web_search_scholar",
    "Searches scholarly literature and returns papers with authors, venue, year, citation count and PDF links where available.",
    required=["query"],
    query=string("Search terms, e.g. 'retrieval augmented generation evaluation'."),
    year_from=integer("Only papers published in or after this year.", minimum=1800),
    year_to=integer("Only papers published in or before this year.", minimum=1800),
    open_access_only=boolean("Only papers with a free full text.", default=False),
    count=integer("Number of papers.", minimum=1, maximum=100, default=10),
)
tool(
    "web_screenshot",
    "Renders a web page in a headless browser and saves a PNG screenshot.",
    required=["url"],
    url=string("URL of the page.", fmt="uri"),
    width=integer("Viewport width in pixels.", minimum=320, maximum=3840, default=1280),
    height=integer("Viewport height in pixels.", minimum=240, maximum=2160, default=800),
    full_page=boolean("Capture the whole scrollable page.", default=False),
    output_path=string("Where to save the PNG.", default="screenshot.png"),
)

# --- Maps ------------------------------------------------------------------------------

TRAVEL_MODE = string(
    "Mode of travel.", enum=["driving", "walking", "bicycling", "transit"], default="driving"
)

tool(
    "maps_geocode",
    "Converts an address or place name into latitude and longitude, with the formatted address and place ID.",
    required=["address"],
    address=string(
        "Address or place, e.g. '1600 Amphitheatre Parkway, Mountain View, CA' or 'Eiffel Tower'."
    ),
    region=string("Two-letter country code to bias results, e.g. uk."),
    language=string("Language of the results, e.g. fr."),
)
tool(
    "maps_reverse_geocode",
    "Converts coordinates into the nearest street address and the place's administrative areas.",
    required=["latitude", "longitude"],
    latitude=LATITUDE,
    longitude=LONGITUDE,
    result_type=string(
        "Only results of this type, e.g. street_address, locality, postal_code, country."
    ),
    language=string("Language of the results."),
)
tool(
    "maps_search_places",
    "Finds places such as restaurants, shops or petrol stations matching a text query, near a location if given.",
    required=["query"],
    query=string("What to look for, e.g. 'vegan restaurants' or 'pharmacy open late'."),
    latitude=number("Latitude of the search centre.", minimum=-90, maximum=90),
    longitude=number("Longitude of the search centre.", minimum=-180, maximum=180),
    radius_meters=integer(
        "Search radius around the centre.", minimum=1, maximum=50000, default=5000
    ),
    open_now=boolean("Only places open at the time of the request.", default=False),
    min_rating=number("Only places rated at least this, from 1 to 5.", minimum=1, maximum=5),
    max_results=integer("Maximum number of places.", minimum=1, maximum=20, default=10),
)
tool(
    "maps_place_details",
    "Gets details of a place: address, phone, website, opening hours, rating, price level and recent reviews.",
    required=["place_id"],
    place_id=string(
        "Place ID from a search or geocoding result, e.g. ChIJN1t_tDeuEmsRUsoyG83frY4."
    ),
    fields=strings(
        'Fields to return, e.g. ["formatted_phone_number", "opening_hours", "reviews"]; fewer fields cost less.'
    ),
    language=string("Language of the results."),
)
tool(
    "maps_directions",
    "Computes a route between places with distance, duration and turn-by-turn steps, by car, on foot, by bike or by public transport.",
    required=["origin", "destination"],
    origin=string("Start: an address, a place ID as place_id:..., or 'lat,lng'."),
    destination=string("End, in the same forms as origin."),
    waypoints=strings("Stops to pass through, in order.", max_items=25),
    mode=TRAVEL_MODE,
    departure_time=string("Departure time for traffic and transit schedules, ISO 8601 or 'now'."),
    avoid=strings("Features to avoid.", enum=["tolls", "highways", "ferries", "indoor"]),
    alternatives=boolean("Return alternative routes as well.", default=False),
    units=string("Units for distances.", enum=["metric", "imperial"], default="metric"),
)
tool(
    "maps_distance_matrix",
    "Computes travel distances and times for every pair of several origins and destinations.",
    required=["origins", "destinations"],
    origins=strings("Start points as addresses or 'lat,lng'.", min_items=1, max_items=25),
    destinations=strings("End points as addresses or 'lat,lng'.", min_items=1, max_items=25),
    mode=TRAVEL_MODE,
    departure_time=string("Departure time for traffic-aware durations, ISO 8601 or 'now'."),
)
tool(
    "maps_elevation",
    "Returns the elevation above sea level in metres of one or more points.",
    required=["locations"],
    locations=array(
        obj(
            "A point.",
            required=["latitude", "longitude"],
            latitude=LATITUDE,
            longitude=LONGITUDE,
        ),
        "Points to look up.",
        min_items=1,
        max_items=512,
    ),
)
tool(
    "maps_timezone",
    "Returns the time zone of a location, its UTC offset and whether daylight saving time is in effect at a given moment.",
    required=["latitude", "longitude"],
    latitude=LATITUDE,
    longitude=LONGITUDE,
    timestamp=integer("Unix time at which to evaluate the offset; defaults to now.", minimum=0),
)
tool(
    "maps_static_map",
    "Renders a map image centred on a place, with optional markers, and returns its URL.",
    required=["center"],
    center=string("Address or 'lat,lng' at the centre of the map."),
    zoom=integer("Zoom level from 0 (world) to 21 (buildings).", minimum=0, maximum=21, default=14),
    size=string(
        "Image size in pixels as WIDTHxHEIGHT.",
        default="640x400",
        pattern="^[0-9]{2,4}x[0-9]{2,4}$",
    ),
    map_type=string(
        "Map style.", enum=["roadmap", "satellite", "terrain", "hybrid"], default="roadmap"
    ),
    markers=strings("Marker locations as addresses or 'lat,lng'."),
)
tool(
    "maps_autocomplete",
    "Suggests places and addresses as the user types a partial query.",
    required=["input"],
    input=string("The text typed so far, e.g. 'Kurfürstend'."),
    session_token=string("Random token grouping the keystrokes of one search, for billing."),
    latitude=number("Latitude to bias suggestions towards.", minimum=-90, maximum=90),
    longitude=number("Longitude to bias suggestions towards.", minimum=-180, maximum=180),
    types=string(
        "Restrict suggestions.",
        enum=["geocode", "address", "establishment", "(regions)", "(cities)"],
    ),
)

# --- Translation -----------------------------------------------------------------------

LANGUAGE = string("Language code, ISO 639-1 with optional region, e.g. de, pt-BR, zh-Hans.")

tool(
    "translate_text",
    "Translates text into a target language; the source language is detected when not given.",
    required=["text", "target_language"],
    text=strings("Texts to translate, up to 128 per request.", min_items=1, max_items=128),
    target_language=LANGUAGE,
    source_language=string("Language of the texts; detected automatically when omitted."),
    formality=string(
        "Formal or informal address, for languages that distinguish them (de, fr, ja, ...).",
        enum=["default", "more", "less", "prefer_more", "prefer_less"],
        default="default",
    ),
    format=string(
        "Whether the text is plain or HTML whose tags must be kept.",
        enum=["text", "html"],
        default="text",
    ),
    glossary_id=string("ID of a glossary with fixed translations of terms."),
)
tool(
    "translate_detect_language",
    "Detects the language of a text and returns language codes with confidence scores.",
    required=["text"],
    text=string("Text whose language to detect; a sentence or more gives reliable results."),
)
tool(
    "translate_list_languages",
    "Lists the languages available for translation, with codes and names.",
    display_language=string("Language to show the language names in.", default="en"),
    type=string("Source or target languages.", enum=["source", "target"], default="target"),
)
tool(
    "translate_document",
    "Translates a whole document (DOCX, PPTX, XLSX, PDF, HTML or TXT) and keeps its formatting.",
    required=["file_path", "target_language"],
    file_path=string("Path of the document to translate."),
    target_language=LANGUAGE,
    source_language=string("Language of the document; detected when omitted."),
    output_path=string("Where to save the translated document; defaults to name.<lang>.<ext>."),
)
tool(
    "translate_create_glossary",
    "Creates a glossary of term pairs so that product names and jargon are always translated the same way.",
    required=["name", "source_language", "target_language", "entries"],
    name=string("Name of the glossary."),
    source_language=LANGUAGE,
    target_language=LANGUAGE,
    entries=obj(
        'Source terms mapped to their translations, e.g. {"workspace": "Arbeitsbereich"}.',
        additional={"type": "string"},
    ),
)
tool(
    "translate_transliterate",
    "Converts text from one script to another without translating it, e.g. Cyrillic to Latin or Japanese kana to romaji.",
    required=["text", "language", "from_script", "to_script"],
    text=string("Text to transliterate."),
    language=LANGUAGE,
    from_script=string("ISO 15924 code of the source script, e.g. Cyrl, Jpan, Arab."),
    to_script=string("ISO 15924 code of the target script, e.g. Latn."),
)


def render(tools: Sequence[Schema]) -> str:
    """The JSONL text of `tools`: one compact JSON object per line."""
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in tools)


#: The packaged catalog this script writes.
TARGET = Path(__file__).resolve().parents[1] / "src" / "toolscout" / "data" / "demo_tools.jsonl"


def main() -> None:
    """Rewrite core/src/toolscout/data/demo_tools.jsonl from `TOOLS`."""
    target = TARGET
    target.write_text(render(TOOLS), encoding="utf-8")
    print(f"wrote {len(TOOLS)} tools to {target}")


if __name__ == "__main__":
    main()
