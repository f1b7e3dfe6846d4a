package project

import (
	"crypto/sha256"

	"github.com/contractcheck/contractcheck/internal/strictjson"
)

// Hash is the sha256 of a view's canonical encoding (strictjson.Marshal: compact, members
// sorted, numbers as written): two views with one hash are the same view. The instrument keys its
// verdict memo and its cache of views with it.
func Hash(v View) ([sha256.Size]byte, error) {
	b, err := strictjson.Marshal(v)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(b), nil
}
