from games.management.domain_command import DomainCommand


class Command(DomainCommand):
    command = "plan"
    help = "Plan scenarios with a domain's reference planners."
