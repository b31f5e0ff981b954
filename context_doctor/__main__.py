from context_doctor.cli import main

main()
