"""URL root: the admin, the versioned REST API and its OpenAPI schema, the web client."""

from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from games.apis.errors import api_not_found

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/v1/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("api/v1/", include("accounts.urls")),
    path("api/v1/", include("games.urls")),
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
