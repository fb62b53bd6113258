" Fray rules files (fray run examples/skirmish.rules): see ../syntax/fray.vim.
" Not the *.rules of udev, polkit and ufw, which Vim knows already.
au BufRead,BufNewFile *.rules if expand('<amatch>:p') !~# '/\%(udev\|polkit-1\|ufw\)/' | set filetype=fray | endif
