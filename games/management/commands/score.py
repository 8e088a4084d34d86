from games.management.domain_command import DomainCommand


class Command(DomainCommand):
    command = "score"
    help = "Score a plan written in the domain's action syntax."
