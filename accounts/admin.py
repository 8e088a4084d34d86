from django.contrib import admin

from accounts.models import ApiToken

# The admin cannot make a token: only a digest is stored and the token is shown once, where it is
# made, so an admin-made row would have no token at all (an empty prefix and digest).
WHERE_TOKENS_ARE_MADE = (
    "Tokens are made on the API tokens page (/accounts/tokens/, a researcher for herself) or by "
    "'manage.py create_api_token USERNAME'; each is shown once there. Here you can see, revoke and delete them."
)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("prefix", "user", "name", "created_at", "last_used_at", "revoked")
    list_filter = ("revoked",)
    search_fields = ("user__username", "name", "prefix")
    readonly_fields = ("prefix", "digest", "created_at", "last_used_at")

    def has_add_permission(self, request):
        return False

    def changelist_view(self, request, extra_context=None):
        return super().changelist_view(request, {**(extra_context or {}), "subtitle": WHERE_TOKENS_ARE_MADE})
