"""URL root: the admin, the versioned REST API and its OpenAPI schema, the web client."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import include, path, re_path
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.response import Response

from gamenook.middleware import content_security_policy, template_styles
from games.apis.errors import api_not_found
from live import streams
from web.limits import limited
from web.login import AdminLoginForm

# The admin's log-in counts its failures with the site's (accounts.backoff), and its
# POSTs in the "accounts" budget, as /login/ does.
admin.site.login_form = AdminLoginForm


class SwaggerView(SpectacularSwaggerSplitView):
    """The API's docs page: Swagger UI from the site's own static files (the sidecar).

    The split view serves the page's starting script from this URL (``?script``)
    rather than inline; the page's one ``<style>`` block, drf-spectacular's own,
    is allowed by its hash, so nothing else inline runs or styles.
    """

    template_name = "drf_spectacular/swagger_ui.html"

    @extend_schema(exclude=True)  # the page, not an endpoint of the API
    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Response:
        response: Response = super().get(request, *args, **kwargs)  # type: ignore[no-untyped-call]
        if request.GET.get("script") is None:
            styles = template_styles(self.template_name)
            response["Content-Security-Policy"] = content_security_policy(request, styles)
        return response


urlpatterns = [
    path("admin/login/", limited("accounts", admin.site.login)),
    path("admin/", admin.site.urls),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/v1/docs/", SwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/v1/", include("accounts.urls")),
    # The NDJSON streams of a user's events and of a table (issue 40; live.streams).
    path("api/v1/stream/events", streams.stream_events, name="stream-events"),
    path("api/v1/tables/<id:table_id>/stream", streams.table_stream, name="table-stream"),
    path("api/v1/", include("games.urls")),
    # Players, leaderboards and a game's rating changes (issue 39).
    path("api/v1/", include("ratings.urls")),
    # The pages account e-mails link to (confirm an address, choose a new password).
    path("accounts/", include("accounts.page_urls")),
    # The one-click unsubscribe link in every e-mail (no login, outside the API).
    path("notifications/", include("notifications.urls")),
    # The load benchmark's baseline; answers 404 unless GAMENOOK_BENCH_ENDPOINTS is on.
    path("api/v1/bench/", include("games.bench")),
    # Anything else under /api/ is a JSON 404, also with DEBUG on.
    re_path(r"^api/", api_not_found),
    # The web client: the lobby at /, the table pages, the account pages.
    path("", include("web.urls")),
]

handler400 = "games.apis.errors.handler400"
handler403 = "games.apis.errors.handler403"
handler404 = "games.apis.errors.handler404"
handler500 = "games.apis.errors.handler500"
