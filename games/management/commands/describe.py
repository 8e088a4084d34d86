from games.management.domain_command import DomainCommand


class Command(DomainCommand):
    command = "describe"
    help = "Describe derived parameters of a scenario."
