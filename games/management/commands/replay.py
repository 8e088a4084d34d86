from games.management.domain_command import DomainCommand


class Command(DomainCommand):
    command = "replay"
    help = "Replay stored or published plans through the rules."
