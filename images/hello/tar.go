package main

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// tarArgs are the parsed arguments of the tar subcommand: the subset of
// GNU tar that kubectl cp uses ("tar cf - PATH", "tar -xmf - -C DIR",
// with --no-same-permissions --no-same-owner).
type tarArgs struct {
	create, extract bool
	file            string // "-": stdin or stdout
	dir             string // -C
	paths           []string
	keepPerms       bool // without --no-same-permissions
}

// parseTarArgs reads a first word of bundled letters with or without a
// dash (cf, -xmf), further dashed letters, -C DIR, and long options.
func parseTarArgs(args []string) (tarArgs, error) {
	a := tarArgs{dir: ".", keepPerms: true}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "--no-same-permissions":
			a.keepPerms = false
		case arg == "--no-same-owner" || arg == "--same-owner" || arg == "-p":
		case strings.HasPrefix(arg, "--"):
			return a, fmt.Errorf("unsupported option %s", arg)
		case arg == "-C":
			if i+1 == len(args) {
				return a, errors.New("option -C needs a directory")
			}
			i++
			a.dir = args[i]
		case strings.HasPrefix(arg, "-") || (i == 0 && arg != ""):
			var err error
			if i, err = a.letters(strings.TrimPrefix(arg, "-"), args, i); err != nil {
				return a, err
			}
		default:
			a.paths = append(a.paths, arg)
		}
	}
	if a.create == a.extract {
		return a, errors.New("exactly one of c and x is required")
	}
	if a.file != "-" {
		return a, fmt.Errorf("only f - (stdin or stdout) is supported, got %q", a.file)
	}
	if a.create && len(a.paths) == 0 {
		return a, errors.New("c needs at least one path")
	}
	return a, nil
}

// letters applies one bundle of single-letter options; f takes the next
// argument. It returns the index of the last argument used.
func (a *tarArgs) letters(bundle string, args []string, i int) (int, error) {
	for _, c := range bundle {
		switch c {
		case 'c':
			a.create = true
		case 'x':
			a.extract = true
		case 'm', 'v', 'o':
		case 'f':
			if i+1 == len(args) {
				return i, errors.New("option f needs an archive")
			}
			i++
			a.file = args[i]
		default:
			return i, fmt.Errorf("unsupported option %c", c)
		}
	}
	return i, nil
}

func cmdTar(args []string, stdout, stderr io.Writer) int {
	a, err := parseTarArgs(args)
	if err != nil {
		return fail(stderr, "tar: %v", err)
	}
	if a.create {
		err = tarCreate(stdout, a.dir, a.paths)
	} else {
		err = tarExtract(os.Stdin, a.dir, a.keepPerms)
	}
	if err != nil {
		return fail(stderr, "tar: %v", err)
	}
	return 0
}

// tarCreate writes an archive of paths (recursively) to w. Member names
// are the paths with a leading "/" removed, as GNU tar writes them.
func tarCreate(w io.Writer, dir string, paths []string) error {
	tw := tar.NewWriter(w)
	for _, p := range paths {
		root := p
		if !filepath.IsAbs(root) {
			root = filepath.Join(dir, p)
		}
		if _, err := os.Lstat(root); err != nil {
			return fmt.Errorf("%s: Cannot stat: No such file or directory", p) // GNU tar's words
		}
		err := filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return tarAdd(tw, file, strings.TrimLeft(filepath.Join(p, strings.TrimPrefix(file, root)), "/"))
		})
		if err != nil {
			return err
		}
	}
	return tw.Close()
}

// tarAdd writes one file's header (and content) under name.
func tarAdd(tw *tar.Writer, file, name string) error {
	fi, err := os.Lstat(file)
	if err != nil {
		return err
	}
	link := ""
	if fi.Mode()&fs.ModeSymlink != 0 {
		if link, err = os.Readlink(file); err != nil {
			return err
		}
	}
	hdr, err := tar.FileInfoHeader(fi, link)
	if err != nil {
		return err
	}
	hdr.Name = name
	if fi.IsDir() {
		hdr.Name += "/"
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.Copy(tw, f)
	return err
}

// tarExtract unpacks the archive on r into dir: directories, regular
// files and symlinks; a member that would land outside dir is refused.
func tarExtract(r io.Reader, dir string, keepPerms bool) error {
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(strings.TrimLeft(hdr.Name, "/"))
		if name == ".." || strings.HasPrefix(name, "../") {
			return fmt.Errorf("%s: member name leaves the target directory", hdr.Name)
		}
		target := filepath.Join(dir, name)
		mode := fs.FileMode(0o644)
		if keepPerms {
			mode = hdr.FileInfo().Mode().Perm()
		}
		if err := extractOne(tr, hdr, target, mode); err != nil {
			return fmt.Errorf("%s: %w", hdr.Name, err)
		}
	}
}

func extractOne(tr *tar.Reader, hdr *tar.Header, target string, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		return os.MkdirAll(target, 0o755)
	case tar.TypeSymlink:
		os.Remove(target)
		return os.Symlink(hdr.Linkname, target)
	case tar.TypeReg:
		f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, tr); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return nil // other types (devices, fifos, hard links) are skipped
}

// cmdTest is test's file checks: -d (directory), -f (regular file), -e
// (exists); exit 0 when true, 1 when false.
func cmdTest(args []string, _, stderr io.Writer) int {
	if len(args) != 2 {
		return fail(stderr, "test: usage: test -d|-f|-e PATH")
	}
	fi, err := os.Stat(args[1])
	ok := err == nil
	switch args[0] {
	case "-d":
		ok = ok && fi.IsDir()
	case "-f":
		ok = ok && fi.Mode().IsRegular()
	case "-e":
	default:
		return fail(stderr, "test: unsupported operator %s", args[0])
	}
	if ok {
		return 0
	}
	return 1
}
