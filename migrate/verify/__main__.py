from triton_migrate.verify.cli import command

command(prog_name="migrate verify")
