from django.core.management.base import BaseCommand, CommandError

from accounts.tokens import create_token, get_user_by_name


class Command(BaseCommand):
    help = "Create an API token for USERNAME and print it (it is shown only once)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default="", help="A label to recognise the token by.")

    def handle(self, *args, username: str, name: str, **options):
        try:
            user = get_user_by_name(username)
        except Exception:
            raise CommandError(f"no user named {username!r}; create it first (manage.py createsuperuser)") from None
        self.stdout.write(create_token(user, name=name))
