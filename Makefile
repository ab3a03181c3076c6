.PHONY: test setup bench

# test installs what is missing and runs every test (the README's command).
test:
	bash scripts/test.sh

setup:
	bash scripts/setup.sh

bench:
	go test -run '^$$' -bench . ./...
