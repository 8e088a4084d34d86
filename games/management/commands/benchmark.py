from games.management.domain_command import DomainCommand


class Command(DomainCommand):
    command = "benchmark"
    help = "Run headless benchmark episodes and print the paper-style metrics."
